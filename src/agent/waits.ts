import type { ApprovalRequest, TimeoutDecision, Verdict } from '../core/index.ts';
import { toMs, type Duration } from '../core/index.ts';
import { followRequest, notRunText, type CallOutcome, type Interlock } from '../engine/index.ts';
import type { Wait } from './state.ts';
import type { InterruptAnswer } from './tool.ts';

/** Where a wait stands, read from its approval request (the engine's {@link CallOutcome}). */
export type WaitOutcome = CallOutcome;

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
  const read = async (id: string) => {
    // `known`: requests the caller just resolved, as committed; each is used once, later reads go to the store.
    const fresh = known?.get(id);
    if (fresh) known!.delete(id);
    // Read for execution: an approved call's claim is then written from the engine's copy, not read again.
    return fresh ?? (await store.getRequest(id, { forExecution: true }));
  };
  const outcome = await followRequest(read, wait.requestId, (req) => seen.set(req.id, req));
  if (outcome.request.id) wait.requestId = outcome.request.id;
  return outcome;
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

export { notRunText };

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
