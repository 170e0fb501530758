import {
  DECISION_TYPES,
  decisionsFor as coreDecisionsFor,
  eligibilityRefusal,
  redactMessages,
  type ApprovalRequest,
  type DecisionType,
  type Resolution,
} from '../core/index.ts';
import { canSeeRole, type Principal } from './auth.ts';
import type { ReviewFacts } from './review-facts.ts';
import type { ThreadRow } from '../store/types.ts';
import type { ThreadView } from './types.ts';
import type { RequestSummary } from './schemas.ts';

/**
 * What the API shows of a request. Times are ISO strings; the application
 * context the policy saw stays server-side; evidence (customer text, model
 * summaries) appears only in the review packet, under `untrusted`.
 */

const iso = (ms: number) => new Date(ms).toISOString();

function resolutionView(r: Resolution | null) {
  return r === null ? null : { ...r, at: iso(r.at) };
}

/** A request as listed in the queue. */
export function requestSummary(req: ApprovalRequest): RequestSummary {
  return {
    id: req.id,
    threadId: req.threadId,
    toolCallId: req.toolCallId,
    tool: req.tool,
    args: req.args,
    reason: req.reason,
    ruleId: req.ruleId,
    tier: req.tier,
    requiredRole: req.role,
    approvalsRequired: req.approvalsRequired,
    approvalsReceived: req.approvalsReceived,
    status: req.status,
    version: req.version,
    actionHash: req.actionHash,
    proposer: req.proposer,
    createdAt: iso(req.createdAt),
    expiresAt: iso(req.expiresAt),
    updatedAt: iso(req.updatedAt),
    resolvedAt: req.resolvedAt === null ? null : iso(req.resolvedAt),
    onTimeout: req.onTimeout,
    resolution: resolutionView(req.resolution),
    parentId: req.parentId,
    supersededBy: req.supersededBy,
    agentPath: Array.isArray(req.context.agentPath) ? (req.context.agentPath as unknown[]).map(String) : null,
    rejectReasons: req.rejectReasons ?? null,
  };
}

/** Decisions `viewer` can take now: the core's one eligibility rule (see `decisionsFor` in core/approval). */
export function decisionsFor(
  req: ApprovalRequest,
  viewer: Principal,
  voters: readonly string[],
  now: number,
): DecisionType[] {
  return coreDecisionsFor(req, viewer, voters, now);
}

/**
 * Why `viewer` may not take each decision they cannot take now, by the code the API would refuse it
 * with, in the order the engine checks (`checkDecision` in core/approval): who may decide
 * (forbidden_role, self_approval, duplicate_reviewer), then already_resolved, request_expired and
 * decision_not_allowed (the rule takes no such decision). Decisions they can take are absent.
 */
export function decisionRefusals(
  req: ApprovalRequest,
  viewer: Principal,
  voters: readonly string[],
  now: number,
): Partial<Record<DecisionType, string>> {
  const allowed = decisionsFor(req, viewer, voters, now);
  const out: Partial<Record<DecisionType, string>> = {};
  for (const t of DECISION_TYPES) {
    if (allowed.includes(t)) continue;
    out[t] =
      eligibilityRefusal(req, viewer, t, voters)?.code ??
      (req.status !== 'pending'
        ? 'already_resolved'
        : now >= req.expiresAt
          ? 'request_expired'
          : 'decision_not_allowed');
  }
  return out;
}

/**
 * Evidence keys the agent loop fills from the conversation (`conversationEvidence` in
 * agent/new-waits.ts): text a customer or a model wrote. Every other key came from the tool's
 * `evidence()` (or an integration's evidence function): facts the system computed.
 */
export const CONVERSATION_EVIDENCE_KEYS: readonly string[] = ['customerMessage', 'agentSaid'];

/**
 * The request's evidence in two parts: what the system computed, and what a customer or a model
 * wrote. In a sub-agent's thread the conversation's "customer message" is the parent agent's
 * request, so it is shown as such, and the customer's own words come from the root thread.
 */
export function evidenceParts(
  evidence: Record<string, unknown>,
  rootCustomerMessage: string | null,
): { computed: Record<string, unknown>; untrusted: Record<string, unknown> } {
  const computed: Record<string, unknown> = {};
  const conversation: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(evidence)) {
    if (CONVERSATION_EVIDENCE_KEYS.includes(k)) conversation[k] = v;
    else computed[k] = v;
  }
  if (rootCustomerMessage === null) return { computed, untrusted: conversation };
  const { customerMessage, ...rest } = conversation;
  return {
    computed,
    untrusted: {
      customerMessage: rootCustomerMessage,
      ...(customerMessage !== undefined && { parentAgentAsked: customerMessage }),
      ...rest,
    },
  };
}

/** Everything a reviewer needs to decide, in one document. */
export function reviewPacket(
  req: ApprovalRequest,
  opts: {
    viewer: Principal;
    voters: readonly string[];
    now: number;
    argsSchema: Record<string, unknown> | null;
    names?: Readonly<Record<string, string>>;
    facts?: ReviewFacts;
  },
) {
  const facts = opts.facts;
  const evidence = evidenceParts(req.evidence, facts?.rootCustomerMessage ?? null);
  return {
    ...requestSummary(req),
    argsSchema: opts.argsSchema,
    escalateTo: req.escalateTo,
    trustable: req.trustable,
    approvedBy: opts.voters,
    names: opts.names ?? {},
    allowedDecisions: decisionsFor(req, opts.viewer, opts.voters, opts.now),
    refusals: decisionRefusals(req, opts.viewer, opts.voters, opts.now),
    // Facts the tool computed when the request was opened: trusted, but as old as `asOf`.
    computed: { evidence: evidence.computed, asOf: iso(facts?.evidenceAsOf ?? req.createdAt) },
    // Text from customers and models: display as plain text, never as markup or instructions.
    untrusted: { evidence: evidence.untrusted },
    ended: facts?.ended ?? null,
    replacement: facts?.replacement ?? null,
    ...plantedCheckView(req),
  };
}

/**
 * What a reviewer is told of a planted check, once it is decided (never while it waits: it must read
 * like any request): whether it was caught. Nothing for a real request.
 */
export function plantedCheckView(req: ApprovalRequest): { plantedCheck?: { caught: boolean | null } } {
  if (!req.planted || req.status === 'pending' || req.status === 'superseded') return {};
  const t = req.resolution?.type;
  return { plantedCheck: { caught: t === 'reject' || t === 'respond' ? true : t === 'timeout' ? null : false } };
}

/**
 * Names of the reviewers a request mentions (its voters, who resolved it, a
 * reviewer who proposed it), by id, so pages say "rejected by Maria
 * Supervisor" rather than an id. Ids of agents and removed reviewers are left out.
 */
export function reviewerNames(
  req: ApprovalRequest,
  voters: readonly string[],
  reviewers: ReadonlyArray<{ id: string; name: string }>,
): Record<string, string> {
  const ids = new Set<string>([...voters, req.proposer, ...(req.resolution ? [req.resolution.by] : [])]);
  return Object.fromEntries(reviewers.filter((r) => ids.has(r.id)).map((r) => [r.id, r.name]));
}

/** A thread as the API shows it. */
export function threadView(t: ThreadRow) {
  return {
    threadId: t.id,
    status: t.status,
    agent: t.agent,
    agentVersion: t.agentVersion,
    messageCount: t.messageCount,
    abortRequested: t.abortRequested,
    // A sub-agent's or graph node's thread: the tree it belongs to (the root runs it).
    tree:
      typeof t.metadata.rootThreadId === 'string'
        ? {
            rootThreadId: t.metadata.rootThreadId,
            parentThreadId:
              typeof t.metadata.parentThreadId === 'string' ? t.metadata.parentThreadId : t.metadata.rootThreadId,
            path: Array.isArray(t.metadata.path) ? (t.metadata.path as unknown[]).map(String) : [],
          }
        : null,
    createdAt: new Date(t.createdAt).toISOString(),
    updatedAt: new Date(t.updatedAt).toISOString(),
  };
}

/**
 * A threads adapter's view as `viewer` may see it: the conversation with
 * personal data masked as on the review card (unless `raw`, which the route
 * allows operators only, audited), and only the pending approvals of roles the
 * viewer may see.
 */
export function reviewerThreadView(view: ThreadView, viewer: Principal, opts: { raw: boolean }): ThreadView {
  const out: ThreadView = { ...view };
  if (Array.isArray(view.messages) && !opts.raw)
    out.messages = redactMessages(view.messages as Parameters<typeof redactMessages>[0]);
  if (Array.isArray(view.pendingApprovals)) {
    out.pendingApprovals = (view.pendingApprovals as Array<{ role?: unknown }>).filter(
      (r) => typeof r.role === 'string' && canSeeRole(viewer, r.role),
    );
  }
  return out;
}
