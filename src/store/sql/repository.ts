import type { StoreTx } from '../types.ts';
import type { Dialect, SqlExecutor } from './executor.ts';
import { auditOps } from './audit.ts';
import { jobOps } from './jobs.ts';
import { ledgerOps } from './ledger.ts';
import { requestOps } from './requests.ts';
import { reviewerOps } from './reviewers.ts';
import { threadOps } from './threads.ts';

/** All store operations over one executor: a transaction, or the pool for one-statement reads. */
export function sqlOps(db: SqlExecutor, d: Dialect): StoreTx {
  return {
    ...threadOps(db),
    ...requestOps(db, d),
    ...ledgerOps(db, d),
    ...jobOps(db, d),
    ...auditOps(db, d),
    ...reviewerOps(db),
  };
}
