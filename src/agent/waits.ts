import type { ApprovalRequest, TimeoutDecision, Verdict } from '../core/index.ts';
import { toMs, type Duration } from '../core/index.ts';
import type { Interlock } from '../engine/index.ts';
import type { Wait } from './state.ts';
import type { InterruptAnswer } from './tool.ts';

/** Where a wait stands, read from its approval request. */
export type WaitOutcome =
  | { state: 'pending'; request: ApprovalRequest }
  | { state: 'approved'; request: ApprovalRequest; args: Record<string, unknown>; by: string }
  | { state: 'rejected'; request: ApprovalRequest; message: string | undefined; by: string }
  | { state: 'responded'; request: ApprovalRequest; message: string; by: string }
  | { state: 'expired'; request: ApprovalRequest; applied: TimeoutDecision }
  | { state: 'cancelled'; request: ApprovalRequest };

/**
 * Read the request a wait is on, following supersessions (an edit that
 * escalated, a timeout that escalated) to the request that now stands.
 * Updates `wait.requestId` when it moved.
 */
export async function resolveWait(
  store: Pick<Interlock, 'getRequest'>,
  wait: Wait,
  seen: Map<string, ApprovalRequest>,
  known?: Map<string, ApprovalRequest>,
): Promise<WaitOutcome> {
  for (let hops = 0; hops < 20; hops++) {
    // `known`: requests the caller just resolved, as committed; each is used once, later reads go to the store.
    const fresh = known?.get(wait.requestId);
    if (fresh) known!.delete(wait.requestId);
    const req = fresh ?? (await store.getRequest(wait.requestId));
    if (!req) return { state: 'cancelled', request: { id: wait.requestId } as ApprovalRequest };
    seen.set(req.id, req);
    if (req.status === 'superseded' && req.supersededBy) {
      wait.requestId = req.supersededBy;
      continue;
    }
    const by = req.resolution?.by ?? 'unknown';
    switch (req.status) {
      case 'pending':
        return { state: 'pending', request: req };
      case 'authorized':
      case 'executing':
      case 'executed':
      case 'failed':
        return { state: 'approved', request: req, args: req.args, by };
      case 'rejected':
        return { state: 'rejected', request: req, message: req.resolution?.message, by };
      case 'responded':
        return { state: 'responded', request: req, message: req.resolution?.message ?? '', by };
      case 'expired':
        return { state: 'expired', request: req, applied: req.resolution?.applied ?? req.onTimeout };
      default:
        return { state: 'cancelled', request: req };
    }
  }
  return { state: 'cancelled', request: { id: wait.requestId } as ApprovalRequest };
}

/** A tool's view of a wait's outcome. */
export function toAnswer(o: Exclude<WaitOutcome, { state: 'pending' }>): InterruptAnswer {
  switch (o.state) {
    case 'approved':
      return o.request.resolution?.type === 'edit'
        ? { type: 'edit', by: o.by, args: o.args }
        : { type: 'approve', by: o.by };
    case 'rejected':
      return o.message === undefined ? { type: 'reject', by: o.by } : { type: 'reject', by: o.by, message: o.message };
    case 'responded':
      return { type: 'respond', by: o.by, message: o.message };
    default:
      return { type: 'timeout' };
  }
}

/** The text the model gets for a call that did not run. */
export function notRunText(o: Exclude<WaitOutcome, { state: 'pending' | 'approved' }>): string {
  switch (o.state) {
    case 'rejected':
      return `A reviewer rejected this action; it was not performed.${o.message ? ` Reviewer's message: ${o.message}` : ''} Offer the customer an alternative or explain.`;
    case 'responded':
      return o.message;
    case 'expired':
      return 'No reviewer decided before the deadline, so the action was not performed (timeout default: reject). Tell the customer it needs more time or offer an alternative.';
    default:
      return 'The approval request was cancelled; the action was not performed.';
  }
}

/** A verdict for an interrupt that does not come from the policy (tool questions, hooks, loop control). */
export function controlVerdict(input: {
  id: string;
  reason: string;
  role: string;
  timeout?: Duration;
  onTimeout?: TimeoutDecision;
}): Verdict {
  return {
    tier: 'approve',
    ruleId: input.id,
    reason: input.reason,
    role: input.role,
    approvalsRequired: 1,
    timeoutMs: toMs(input.timeout ?? '24h'),
    onTimeout: input.onTimeout === 'escalate' ? 'reject' : (input.onTimeout ?? 'reject'),
    escalateTo: null,
    trustable: false,
    matched: [input.id],
  };
}
