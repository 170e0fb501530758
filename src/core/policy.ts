import { ConfigError } from './errors.ts';
import { toMs, type Duration } from './duration.ts';
import {
  tierRank,
  isInterrupting,
  type Tier,
  type TimeoutDecision,
  type Verdict,
  type RejectReasons,
} from './tiers.ts';
import { policySchema } from './policy-schema.ts';
import { applyHiddenCharacters, type HiddenCharactersMode } from './policy-hidden.ts';

export { HIDDEN_CHARACTERS_MODES, HIDDEN_CHARACTERS_RULE, type HiddenCharactersMode } from './policy-hidden.ts';

export {
  TIERS,
  TIMEOUT_DECISIONS,
  tierRank,
  maxTier,
  isInterrupting,
  type Tier,
  type TimeoutDecision,
  type Verdict,
  type RejectReasons,
} from './tiers.ts';

/** A proposed tool call. */
export interface ToolCall {
  tool: string;
  args: Record<string, unknown>;
}

/** What a rule's condition can see besides the arguments. */
export interface PolicyContext {
  now: Date;
  threadId?: string;
  /** Who proposed the call (the agent's identity). */
  proposer?: string;
  /** Application facts supplied by the caller: customer tier, user id, channel… */
  app: Record<string, unknown>;
  /** Values of the tool policy's declared aggregates, read from the store before evaluation. */
  aggregates: Record<string, number>;
}

/** Input of a rule condition. */
export interface RuleInput<A extends Record<string, unknown> = Record<string, unknown>> {
  tool: string;
  /** The call's arguments: typed as the tool's schema when the rules come from `policyFor(tool, rules)`. */
  args: A;
  ctx: PolicyContext;
}

/**
 * An aggregate over past actions, read from the store before the rules run.
 * @example
 * // the sum of refunds to the same customer over 24 h
 * { fn: 'sum', field: 'amount', groupBy: 'customerId', window: '24h' }
 */
export interface AggregateSpec {
  fn: 'sum' | 'count';
  /** Argument to sum (required for `sum`). */
  field?: string;
  /** Only count past calls whose argument of this name equals the current call's. */
  groupBy?: string;
  window: Duration;
  /** Tool whose past calls count; defaults to the tool being evaluated. */
  tool?: string;
  /** Which outcomes count: executed actions (default) or failed ones ("recent failures"). */
  outcome?: 'executed' | 'failed';
}

/** Where an expired request goes when its rule says `onTimeout: 'escalate'`. */
export interface EscalationTarget {
  role: string;
  approvals?: number;
  timeout?: Duration;
}

/** One policy rule for one tool (`A`: the tool's argument type, see `policyFor`). */
export interface Rule<A extends Record<string, unknown> = Record<string, unknown>> {
  /** Stable id, recorded on requests and in the audit log. */
  id: string;
  tier: Tier;
  /** Condition; a rule without one always matches. Must be pure and fast. */
  when?: (input: RuleInput<A>) => boolean;
  /** Why this tier: shown to reviewers and recorded. */
  reason: string | ((input: RuleInput<A>) => string);
  /** Role that may decide (approve / escalate tiers; also told for `notify`). */
  role?: string;
  /** Distinct reviewers needed to authorize (default 1). */
  approvals?: number;
  /** How long a request stays open (default from the policy, 24 h if unset). */
  timeout?: Duration;
  /** Decision applied on timeout (default `reject`). */
  onTimeout?: TimeoutDecision;
  /** Required when `onTimeout` is `escalate`. */
  escalateTo?: EscalationTarget;
  /** May a reviewer "approve and trust" this rule for the rest of a thread? (default true for `approve`). */
  trustable?: boolean;
  /**
   * The decisions reviewers may take on this rule's requests (default all four: approve, edit, reject,
   * respond). Every door follows it: the engine refuses any other (`decision_not_allowed`), the web UI,
   * Slack and the API's `allowedDecisions` offer only these, LangChain's interrupt lists them. Must
   * include `approve` and `reject`. E.g. `['approve', 'reject']` for an action whose arguments no
   * reviewer should rewrite.
   */
  decisions?: Array<'approve' | 'edit' | 'reject' | 'respond'>;
  /**
   * What a reviewer says when rejecting this rule's requests. `required: true`: a reject without a
   * reason is refused at every door (`reason_required`: the API, the CLI, Slack, the web card, in-process answers).
   * `choices`: canned reasons the card offers beside free text (the reason is the message the agent
   * reads). E.g. `{ required: true, choices: ['Duplicate request', 'Amount over the order total'] }`.
   */
  rejectReasons?: { required?: boolean; choices?: string[] };
  /**
   * Planted checks (off by default; `approve` and `escalate` rules only): when this rule pauses a real
   * call, at `rate` Interlock also places a synthetic request built by `template` in the same queue —
   * one a careful reviewer should reject. It can never execute. See docs/metrics.md.
   */
  plant?: PlantSpec<A>;
}

/** How a rule's planted checks are made. */
export interface PlantSpec<A extends Record<string, unknown> = Record<string, unknown>> {
  /** Share of this rule's real requests that also place a planted check, 0..1 (e.g. 0.02). */
  rate: number;
  /**
   * The planted action, from the real call: arguments a careful reviewer should refuse (a refund to an
   * account that does not exist, an amount over the order's total), and the evidence shown with them
   * (default: the real request's).
   */
  template: (input: { args: A; app: Record<string, unknown> }) => {
    args: Record<string, unknown>;
    evidence?: Record<string, unknown>;
  };
}

/** The rules of one tool, and the aggregates they read. */
export interface ToolPolicy<A extends Record<string, unknown> = Record<string, unknown>> {
  rules: Rule<A>[];
  aggregates?: Record<string, AggregateSpec>;
}

/** A triage evaluator may raise a verdict's tier, never lower it. */
export type Triage = (
  call: ToolCall,
  verdict: Verdict,
  ctx: PolicyContext,
) => TriageResult | undefined | Promise<TriageResult | undefined>;
export interface TriageResult {
  tier: Tier;
  reason: string;
  role?: string;
}

/** Policy for every tool the agent may call. */
export interface PolicyConfig {
  tools: Record<string, ToolPolicy | Rule[]>;
  triage?: Triage;
  defaults?: { role?: string; timeout?: Duration; onTimeout?: TimeoutDecision };
  /**
   * Calls whose arguments hold hidden characters (bidi controls, zero-width and
   * other format characters, control characters): `allow` (default, evaluated
   * like any call), or raised to at least `approve`, `escalate` or `block` under
   * the rule id `hidden-characters`. Use `escalate` or `block` in production.
   */
  hiddenCharacters?: HiddenCharactersMode;
}

/** A validated, ready-to-evaluate policy. */
export interface Policy {
  readonly tools: ReadonlyMap<
    string,
    { rules: NormalizedRule[]; aggregates: Record<string, AggregateSpec & { windowMs: number }> }
  >;
  readonly triage: Triage | undefined;
  /** What happens to calls whose arguments hold hidden characters. */
  readonly hiddenCharacters: HiddenCharactersMode;
  /**
   * The policy's defaults as a rule without them would get: for verdicts made outside the rules (an
   * MCP gateway's annotation hints), so they wait and time out like the operator's own rules.
   */
  readonly defaults: { timeoutMs: number; onTimeout: TimeoutDecision; role: string | undefined };
  /** Aggregates the tool's rules read, or an empty object. */
  aggregatesFor(tool: string): Record<string, AggregateSpec & { windowMs: number }>;
  /** Pure evaluation, given the aggregates already read. */
  evaluate(call: ToolCall, ctx: PolicyContext): Verdict;
  /** The planted-check settings of a tool's rule, if it has any. */
  plantFor(tool: string, ruleId: string): PlantSpec | undefined;
}

interface NormalizedRule extends Rule {
  timeoutMs: number;
  onTimeout: TimeoutDecision;
  approvals: number;
}

const DEFAULT_TIMEOUT_MS = 24 * 3_600_000;

/**
 * Validate a policy and prepare it for evaluation. Throws a {@link ConfigError}
 * listing every problem, before anything runs.
 *
 * Among the rules of a tool that match a call, the most restrictive tier wins;
 * on a tie the rule declared first wins. A tool without rules is blocked, and so
 * is a call no rule matches: give each tool a rule without `when` as its default.
 *
 * @example
 * const policy = definePolicy({ tools: {
 *   look_up_order: [{ id: 'lookup', tier: 'auto', reason: 'read-only' }],
 *   issue_refund: [
 *     { id: 'small', tier: 'auto', reason: 'small refund' },
 *     { id: 'large', tier: 'approve', role: 'supervisor', timeout: '30m',
 *       when: ({ args }) => Number(args.amount) > 500, reason: 'refund over $500' },
 *   ],
 * }});
 */
export function definePolicy(config: PolicyConfig): Policy {
  const parsed = policySchema.safeParse(config);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new ConfigError(`Invalid policy:\n  ${issues.join('\n  ')}`, { issues });
  }
  const defaults = config.defaults ?? {};
  const tools = new Map<
    string,
    { rules: NormalizedRule[]; aggregates: Record<string, AggregateSpec & { windowMs: number }> }
  >();
  for (const [tool, tp] of Object.entries(config.tools)) {
    const rules = Array.isArray(tp) ? tp : tp.rules;
    const aggregates = Array.isArray(tp) ? {} : (tp.aggregates ?? {});
    const ids = new Set<string>();
    const normalized = rules.map((r): NormalizedRule => {
      const where = `tools.${tool} rule "${r.id}"`;
      if (ids.has(r.id)) throw new ConfigError(`${where}: duplicate rule id; give each rule of a tool its own id.`);
      ids.add(r.id);
      const role = r.role ?? defaults.role;
      if (isInterrupting(r.tier) && !role) {
        throw new ConfigError(
          `${where}: tier "${r.tier}" needs "role", the reviewer role that may decide (or set defaults.role).`,
        );
      }
      if (r.plant && !isInterrupting(r.tier))
        throw new ConfigError(
          `${where}: "plant" needs a rule that pauses (tier approve or escalate); a planted check waits in a reviewer's queue.`,
        );
      const onTimeout = r.onTimeout ?? defaults.onTimeout ?? 'reject';
      if (onTimeout === 'escalate' && !r.escalateTo) {
        throw new ConfigError(
          `${where}: onTimeout "escalate" needs "escalateTo": { role } naming who decides after the timeout.`,
        );
      }
      return {
        ...r,
        ...(role === undefined ? {} : { role }),
        timeoutMs: toMs(r.timeout ?? defaults.timeout ?? DEFAULT_TIMEOUT_MS, `${where} timeout`),
        onTimeout,
        approvals: r.approvals ?? 1,
      };
    });
    const aggs: Record<string, AggregateSpec & { windowMs: number }> = {};
    for (const [name, a] of Object.entries(aggregates))
      aggs[name] = { ...a, windowMs: toMs(a.window, `tools.${tool}.aggregates.${name}`) };
    tools.set(tool, { rules: normalized, aggregates: aggs });
  }

  const hiddenCharacters = config.hiddenCharacters ?? 'allow';
  return {
    tools,
    triage: config.triage,
    hiddenCharacters,
    defaults: {
      timeoutMs: toMs(defaults.timeout ?? DEFAULT_TIMEOUT_MS, 'defaults.timeout'),
      onTimeout: defaults.onTimeout ?? 'reject',
      role: defaults.role,
    },
    aggregatesFor: (tool) => tools.get(tool)?.aggregates ?? {},
    plantFor: (tool, ruleId) => tools.get(tool)?.rules.find((r) => r.id === ruleId)?.plant,
    evaluate: (call, ctx) =>
      applyHiddenCharacters(evaluateRules(tools, call, ctx), call.args, hiddenCharacters, defaults.role),
  };
}

/** The verdict of a tool's own rules: the most restrictive matching rule, the first declared on a tie. */
function evaluateRules(tools: Policy['tools'], call: ToolCall, ctx: PolicyContext): Verdict {
  const tp = tools.get(call.tool);
  if (!tp || tp.rules.length === 0)
    return blockedVerdict('no-policy', `no policy for tool "${call.tool}"; add rules for it to the policy to allow it`);
  const input: RuleInput = { tool: call.tool, args: call.args, ctx };
  let best: NormalizedRule | undefined;
  const matched: NormalizedRule[] = [];
  for (const rule of tp.rules) {
    if (rule.when && !rule.when(input)) continue;
    matched.push(rule);
    if (!best || tierRank(rule.tier) > tierRank(best.tier)) best = rule;
  }
  if (!best)
    return blockedVerdict(
      'no-match',
      `no rule of tool "${call.tool}" matched this call; add a rule without "when" as the tool's default`,
    );
  matched.sort((a, b) => tierRank(b.tier) - tierRank(a.tier));
  const reason = typeof best.reason === 'function' ? best.reason(input) : best.reason;
  const esc = best.escalateTo;
  return {
    tier: best.tier,
    ruleId: best.id,
    reason,
    role: best.role ?? null,
    approvalsRequired: isInterrupting(best.tier) ? best.approvals : 0,
    timeoutMs: best.timeoutMs,
    onTimeout: best.onTimeout,
    escalateTo: esc
      ? { role: esc.role, approvals: esc.approvals ?? 1, timeoutMs: toMs(esc.timeout ?? best.timeoutMs) }
      : null,
    trustable: best.tier === 'approve' && best.trustable !== false,
    ...(best.decisions ? { decisions: [...new Set(best.decisions)] } : {}),
    ...(best.rejectReasons ? { rejectReasons: rejectReasonsOf(best.rejectReasons) } : {}),
    matched: matched.map((r) => r.id),
  };
}

/** A rule's reject reasons as requests keep them: both fields present, choices trimmed and each once. */
function rejectReasonsOf(r: NonNullable<Rule['rejectReasons']>): RejectReasons {
  return { required: r.required === true, choices: [...new Set((r.choices ?? []).map((c) => c.trim()))] };
}

/** A block verdict of no rule of the policy's own (no policy for the tool, a refusal before the rules). */
export function blockedVerdict(ruleId: string, reason: string): Verdict {
  return {
    tier: 'block',
    ruleId,
    reason,
    role: null,
    approvalsRequired: 0,
    timeoutMs: 0,
    onTimeout: 'reject',
    escalateTo: null,
    trustable: false,
    matched: [],
  };
}

/**
 * Apply a triage result to a verdict: it may only raise the tier. Raising to an
 * interrupting tier without a role keeps the rule's role, else `fallbackRole`.
 */
export function applyTriage(verdict: Verdict, result: TriageResult | undefined, fallbackRole: string): Verdict {
  if (!result || tierRank(result.tier) <= tierRank(verdict.tier)) return verdict;
  const role = result.role ?? verdict.role ?? fallbackRole;
  return {
    ...verdict,
    tier: result.tier,
    reason: `${result.reason} (raised from ${verdict.tier}: ${verdict.reason})`,
    role,
    approvalsRequired: isInterrupting(result.tier) ? Math.max(1, verdict.approvalsRequired) : 0,
    timeoutMs: verdict.timeoutMs || DEFAULT_TIMEOUT_MS,
    trustable: false,
    raisedBy: 'triage',
  };
}
