import type { StoreTx } from '../types.ts';
import type { Dialect, SqlExecutor } from './executor.ts';
import { auditOps } from './audit.ts';
import { jobOps } from './jobs.ts';
import { ledgerOps } from './ledger.ts';
import { requestOps } from './requests.ts';
import { reviewerOps } from './reviewers.ts';
import { sessionOps } from './sessions.ts';
import { threadOps } from './threads.ts';

/** All store operations over one executor: a transaction's, or the plain path {@link standaloneOps} wraps. */
export function sqlOps(db: SqlExecutor, d: Dialect): StoreTx {
  return {
    ...threadOps(db),
    ...requestOps(db, d),
    ...ledgerOps(db, d),
    ...jobOps(db, d),
    ...auditOps(db, d),
    ...reviewerOps(db),
    ...sessionOps(db),
  };
}

/**
 * Operations that are one SQL statement, so atomic without a transaction.
 * Every other operation (read-then-write such as `appendAudit`, or several
 * steps such as `claimExecution`) runs in a transaction of its own when called
 * on a Store. Forgetting to list a new one-statement operation here costs a
 * BEGIN/COMMIT; the opposite mistake would cost atomicity, hence the default.
 */
const ONE_STATEMENT: ReadonlySet<string> = new Set<keyof StoreTx>([
  'insertThread', 'getThread', 'updateThread', 'appendMessages', 'listMessages', 'advanceThread', 'insertCheckpoint', 'getLatestCheckpoint', 'loadLatest', 'getCheckpoint',
  // claimThread: one write (the upsert); when the lease is held, a read of the row for the caller, which needs no atomicity.
  'claimThread', 'renewThreadLease', 'releaseThread', 'renewExecution',
  'insertRequest', 'getRequest', 'setRequestStatus', 'updateRequest', 'listRequests', 'claimExpired', 'insertVote', 'listVoters', 'countPendingByRole', 'insertTrust', 'getTrust',
  'finishExecution', 'getExecution', 'listExecutionsForRequest', 'aggregate',
  'enqueueJob', 'claimJobs', 'completeJob', 'deferJob', 'renewJobs', 'settleResumeJobs', 'failJob', 'getJob', 'listJobs', 'countJobs',
  'listAudit', 'getAuditHeads',
  'insertReviewer', 'getReviewerByTokenHash', 'getReviewer', 'listReviewers', 'revokeReviewer',
  'insertSession', 'getSession', 'deleteSession', 'deleteExpiredSessions',
]);

/** One-statement operations that write: where commits can be shared (SQLite's group commit), they join one. */
const WRITES: ReadonlySet<string> = new Set<keyof StoreTx>([
  'insertThread', 'updateThread', 'appendMessages', 'advanceThread', 'insertCheckpoint', 'claimThread', 'renewThreadLease', 'releaseThread', 'renewExecution',
  'insertRequest', 'setRequestStatus', 'updateRequest', 'claimExpired', 'insertVote', 'insertTrust', 'finishExecution',
  'enqueueJob', 'claimJobs', 'completeJob', 'deferJob', 'renewJobs', 'settleResumeJobs', 'failJob',
  'insertReviewer', 'revokeReviewer', 'insertSession', 'deleteSession', 'deleteExpiredSessions',
]);

type Op = (...args: unknown[]) => Promise<unknown>;

/**
 * The operations as a Store exposes them outside a caller's transaction, so
 * each runs "in its own" as {@link StoreTx} promises: one-statement operations
 * through `single` (the backend's plain path), the rest through `transaction`.
 * With `groupWrites`, one-statement writes also go through `transaction`, where
 * concurrent ones share a commit (SQLite's group commit) instead of each syncing alone.
 */
export function standaloneOps(
  ops: StoreTx,
  single: <T>(fn: () => Promise<T>) => Promise<T>,
  transaction: <T>(fn: (tx: StoreTx) => Promise<T>) => Promise<T>,
  opts: { groupWrites?: boolean } = {},
): StoreTx {
  const wrapped = Object.entries(ops as unknown as Record<string, Op>).map(([name, op]): [string, Op] =>
    ONE_STATEMENT.has(name) && !(opts.groupWrites && WRITES.has(name))
      ? [name, (...args) => single(() => op(...args))]
      : [name, (...args) => transaction((tx) => (tx as unknown as Record<string, Op>)[name]!(...args))],
  );
  return Object.fromEntries(wrapped) as unknown as StoreTx;
}
