import type { ApprovalRequest } from '../core/index.ts';
import type { Interlock } from '../engine/index.ts';
import { canSeeRole, type Principal } from '../server/auth.ts';
import { reviewFacts } from '../server/review-facts.ts';
import type { BatchOutcome, BatchStage, NotRunReason } from './batch-types.ts';

/** Statuses after which a request's action never runs, and why, in the batch page's words. */
const NOT_RUN: Partial<Record<ApprovalRequest['status'], NotRunReason>> = {
  cancelled: 'cancelled',
  expired: 'expired',
  rejected: 'rejected',
  responded: 'responded',
  superseded: 'superseded',
};

const STAGE: Partial<Record<ApprovalRequest['status'], BatchStage>> = {
  pending: 'counting',
  authorized: 'waiting',
  executing: 'running',
  executed: 'ran',
  failed: 'failed',
};

/**
 * Where one request's action stands, followed to its end: a planted check that was decided never
 * runs (it says so — never "approved" as if it ran); pending is still counting approvals;
 * authorized waits to run; executing runs; executed ran; failed carries the tool's error; the
 * other final states did not run, and say why.
 */
export async function batchOutcome(interlock: Interlock, r: ApprovalRequest): Promise<BatchOutcome> {
  const base = {
    id: r.id,
    status: r.status,
    approvalsReceived: r.approvalsReceived,
    approvalsRequired: r.approvalsRequired,
  };
  // Told only once decided, as the card tells it: while it waits a check must read like any request.
  if (r.planted && r.status !== 'pending') return { ...base, stage: 'not_run', notRun: 'planted' };
  const notRun = NOT_RUN[r.status];
  const stage = notRun ? 'not_run' : (STAGE[r.status] ?? 'waiting');
  if (notRun === 'superseded') return { ...base, stage, notRun, supersededBy: r.supersededBy };
  if (notRun !== 'cancelled' && stage !== 'failed') return { ...base, stage, ...(notRun ? { notRun } : {}) };
  // The failed execution's error and why it was cancelled, read (and masked) as the review card reads them.
  const ended = (await reviewFacts(interlock, r)).ended;
  return {
    ...base,
    stage,
    ...(notRun ? { notRun } : {}),
    ...(ended?.error ? { error: ended.error } : {}),
    ...(ended?.reason ? { reason: ended.reason } : {}),
  };
}

/** The outcomes of the requests `ids` that `p` may see, in the order asked; others are left out. */
export async function batchOutcomes(
  interlock: Interlock,
  p: Principal,
  ids: readonly string[],
): Promise<BatchOutcome[]> {
  const out: BatchOutcome[] = [];
  for (const id of ids) {
    const r = await interlock.getRequest(id);
    if (r && canSeeRole(p, r.role)) out.push(await batchOutcome(interlock, r));
  }
  return out;
}
