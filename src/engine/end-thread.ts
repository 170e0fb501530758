import { transition, type ApprovalRequest, type AuditEventInput, type RequestStatus } from '../core/index.ts';
import type { StoreTx } from '../store/types.ts';

/** Statuses of a request that still waits on a person or on a run of its thread. */
const OPEN: readonly RequestStatus[] = ['pending', 'authorized'];

/**
 * Cancel the open requests of a thread that can no longer resume (failed or
 * aborted), in the caller's transaction, with one `cancelled` audit event each.
 * Pending requests would otherwise stay decidable, and authorized ones would
 * promise a run that never comes. An `executing` request is left alone: its
 * side effect may have happened, and the execution ledger holds its truth.
 * Returns the requests as cancelled.
 *
 * `before`: the caller's events to record ahead of the cancellations (the thread's end), in the same
 * append. The audit chain is locked last, after the requests, as an execution's outcome takes them
 * (ledger row, request, chain): taking the chain first deadlocked against an outcome on PostgreSQL.
 */
export async function cancelOpenRequests(
  tx: StoreTx,
  threadId: string,
  actor: string,
  reason: string,
  now: number,
  before: readonly AuditEventInput[] = [],
): Promise<ApprovalRequest[]> {
  const cancelled: ApprovalRequest[] = [];
  const audit: AuditEventInput[] = [...before];
  for (const status of OPEN) {
    for (;;) {
      const { items } = await tx.listRequests({ threadId, status, limit: 500 });
      let progress = 0;
      for (const listed of items) {
        const req = await tx.getRequest(listed.id, { forUpdate: true });
        if (!req || req.status !== status) continue;
        const next = transition(req, { type: 'cancel' }, now);
        if (!(await tx.updateRequest(next, req.version))) continue;
        cancelled.push(next);
        progress++;
        audit.push({ type: 'cancelled', actor, threadId, requestId: req.id, payload: { from: status, reason } });
      }
      if (items.length < 500 || progress === 0) break;
    }
  }
  if (audit.length) await tx.appendAudit(audit, now);
  return cancelled;
}

/**
 * End a thread for good: mark it `failed` or `aborted`, give its lease back,
 * cancel its open requests (see {@link cancelOpenRequests}) and record why,
 * all in the caller's transaction.
 */
export async function endThread(
  tx: StoreTx,
  threadId: string,
  end: {
    status: 'failed' | 'aborted';
    actor: string;
    reason: string;
    requestId?: string | null;
    payload?: Record<string, unknown>;
  },
  now: number,
): Promise<ApprovalRequest[]> {
  await tx.updateThread(
    threadId,
    { status: end.status, leaseOwner: null, ...(end.status === 'aborted' ? { abortRequested: true } : {}) },
    now,
  );
  // The end's event first in the chain, appended with the cancellations, after their requests' locks.
  return cancelOpenRequests(tx, threadId, end.actor, end.reason, now, [
    {
      type: end.status,
      actor: end.actor,
      threadId,
      requestId: end.requestId ?? null,
      payload: end.payload ?? { reason: end.reason },
    },
  ]);
}
