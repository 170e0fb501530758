/** The execute-once ledger's answers to a call that does not run: a replay, a refusal. */
import { executionGuard, InterlockUsageError, NotFoundError, type ApprovalRequest } from '../core/index.ts';
import type { ExecutionRow } from '../store/types.ts';
import type { ExecutionInput, ExecutionOutcome } from './execute-types.ts';

/** What the ledger's row answers a call that does not run: its recorded outcome, or that another attempt holds it. */
export function replay<T>(row: ExecutionRow): ExecutionOutcome<T> {
  if (row.status === 'abandoned')
    return {
      status: 'failed',
      error: 'abandoned by an interrupt; run again under a new key',
      replayed: true,
      key: row.key,
    };
  if (row.status === 'succeeded') return { status: 'succeeded', result: row.result as T, replayed: true, key: row.key };
  if (row.status === 'failed') return { status: 'failed', error: row.error ?? 'failed', replayed: true, key: row.key };
  return { status: 'in_progress', key: row.key, leaseUntil: row.leaseUntil };
}

/** Step 2 of an execution: the key is held or finished already; its record answers, if it is this action's. */
export function notClaimed<T>(row: ExecutionRow, input: ExecutionInput, hash: string): ExecutionOutcome<T> {
  // The key was used for another action (a call id a model reused, under a key built from it):
  // its recorded result is not this call's, and this call must not be taken as done.
  if (row.actionHash !== hash)
    throw new InterlockUsageError(
      'action_hash_mismatch',
      `Idempotency key ${input.key} was used for another action of ${row.tool}; this call did not run, and the recorded result is not its. Give each call its own key (a call id a model reuses is a new call).`,
      { details: { key: input.key } },
    );
  return replay<T>(row);
}

/** Refuse to run what the request does not authorize: a planted check, an undecided request, other arguments. */
export function assertRunnable(
  req: ApprovalRequest | undefined,
  requestId: string,
  hash: string,
): asserts req is ApprovalRequest {
  if (!req) throw new NotFoundError('approval_request', requestId);
  executionGuard(req);
  if (!['authorized', 'executing', 'executed', 'failed'].includes(req.status)) {
    throw new InterlockUsageError(
      'not_authorized',
      `Approval request ${req.id} is ${req.status}; only an authorized action runs. Wait for a decision.`,
      { details: { requestId: req.id, status: req.status } },
    );
  }
  if (req.actionHash !== hash) {
    throw new InterlockUsageError(
      'action_hash_mismatch',
      `The action to run does not match the one authorized on request ${req.id}; run exactly the authorized arguments.`,
      { details: { requestId: req.id } },
    );
  }
}
