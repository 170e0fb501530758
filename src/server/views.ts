import { allowedDecisions, redactMessages, type ApprovalRequest, type DecisionType, type Resolution } from '../core/index.ts';
import { canSeeRole, type Principal } from './auth.ts';
import type { ThreadRow } from '../store/types.ts';
import type { ThreadView } from './types.ts';

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
export function requestSummary(req: ApprovalRequest) {
  return {
    id: req.id,
    threadId: req.threadId,
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
  };
}

/**
 * Decisions `viewer` can take now: none once the request is resolved or past
 * its expiry (the sweeper may not have run yet), none for a reviewer without
 * the role, for the proposer, or for someone who already approved.
 */
export function decisionsFor(req: ApprovalRequest, viewer: Principal, voters: readonly string[], now: number): DecisionType[] {
  if (now >= req.expiresAt || !viewer.roles.includes(req.role) || viewer.id === req.proposer || voters.includes(viewer.id)) return [];
  return allowedDecisions(req);
}

/** Everything a reviewer needs to decide, in one document. */
export function reviewPacket(
  req: ApprovalRequest,
  opts: { viewer: Principal; voters: readonly string[]; now: number; argsSchema: Record<string, unknown> | null },
) {
  return {
    ...requestSummary(req),
    argsSchema: opts.argsSchema,
    escalateTo: req.escalateTo,
    trustable: req.trustable,
    approvedBy: opts.voters,
    allowedDecisions: decisionsFor(req, opts.viewer, opts.voters, opts.now),
    // Text from customers and models: display as plain text, never as markup or instructions.
    untrusted: { evidence: req.evidence },
  };
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
  if (Array.isArray(view.messages) && !opts.raw) out.messages = redactMessages(view.messages as Parameters<typeof redactMessages>[0]);
  if (Array.isArray(view.pendingApprovals)) {
    out.pendingApprovals = (view.pendingApprovals as Array<{ role?: unknown }>).filter((r) => typeof r.role === 'string' && canSeeRole(viewer, r.role));
  }
  return out;
}
