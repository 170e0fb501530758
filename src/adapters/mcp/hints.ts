import type { GateVerdict, Interlock } from '../../engine/index.ts';
import type { CallCheck } from '../core/index.ts';
import type { McpGatewayOptions, Route } from './types.ts';

/**
 * The tier a tool the policy does not name gets from its annotations, when `hints` says how.
 *
 * Annotations come from the upstream server, so they are claims, not facts: a tool that says
 * `readOnlyHint` may write. They can lower a tool to the `readOnly` tier only when the operator trusts
 * that upstream's annotations (`hints.trustAnnotationsOf`), and never when they contradict themselves
 * (`readOnlyHint` with `destructiveHint: true`). Every other unnamed tool is destructive-capable and
 * gets `other` — the tier the operator chose for those.
 */
export function hintedTier(hints: NonNullable<McpGatewayOptions['hints']>, route: Route): { tier: Tier; why: string } {
  const a = route.tool.annotations;
  const trusted = hints.trustAnnotationsOf?.includes(route.upstream) ?? false;
  const other = hints.other ?? 'block';
  if (a?.readOnlyHint !== true)
    return { tier: other, why: a?.destructiveHint ? 'destructiveHint' : 'no read-only hint' };
  if (a.destructiveHint === true) return { tier: other, why: 'readOnlyHint contradicted by destructiveHint' };
  if (!trusted)
    return {
      tier: other,
      why: `readOnlyHint, not trusted (upstream "${route.upstream}" is not in trustAnnotationsOf)`,
    };
  return { tier: hints.readOnly ?? 'block', why: 'readOnlyHint' };
}

type Tier = 'auto' | 'notify' | 'approve' | 'block';
/** What the policy (or hints) says of a call that has no request. */
type PolicyCheck = Extract<CallCheck, { kind: 'run' | 'block' | 'ask' }>;

/**
 * A tool the policy does not know gets its verdict from {@link hintedTier}, with the policy's default
 * timeout and on-timeout decision, so a request it opens waits like any other.
 */
export function hinted(il: Interlock, hints: McpGatewayOptions['hints'], route: Route, c: PolicyCheck): PolicyCheck {
  if (c.kind !== 'block' || c.verdict.ruleId !== 'no-policy' || !hints) return c;
  const { tier, why } = hintedTier(hints, route);
  const d = il.policy.defaults;
  const pauses = tier === 'approve';
  const verdict: GateVerdict = {
    ...c.verdict,
    tier,
    ruleId: `hint:${why === 'readOnlyHint' ? 'read-only' : 'other'}`,
    reason: `no rule for ${route.name}; the upstream marks it ${why}`,
    role: pauses ? (hints.role ?? d.role ?? 'supervisor') : null,
    approvalsRequired: pauses ? 1 : 0,
    timeoutMs: d.timeoutMs,
    // An escalation needs a role to go to, which hints do not name.
    onTimeout: d.onTimeout === 'escalate' ? 'reject' : d.onTimeout,
    trustable: false,
    matched: [],
  };
  if (tier === 'block')
    return { kind: 'block', verdict, message: `Blocked by policy: ${verdict.reason}. Do not retry this action.` };
  return pauses ? { kind: 'ask', verdict } : { kind: 'run', verdict };
}
