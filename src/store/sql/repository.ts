import type { StoreTx } from '../types.ts';
import type { Dialect, OpShape, SqlExecutor } from './executor.ts';
import { auditOps, auditShapes } from './audit.ts';
import { jobOps, jobShapes } from './jobs.ts';
import { ledgerOps, ledgerShapes } from './ledger.ts';
import { requestOps, requestShapes } from './requests.ts';
import { reviewerOps, reviewerShapes } from './reviewers.ts';
import { sessionOps, sessionShapes } from './sessions.ts';
import { threadOps, threadShapes } from './threads.ts';
import { oversightOps, oversightShapes } from './oversight.ts';
import { subjectOps, subjectShapes } from './subjects.ts';
import { toolSchemaOps, toolSchemaShapes } from './tool-schemas.ts';
import { claimOps, claimShapes } from './claims.ts';
import { noteOps, noteShapes } from './notes.ts';
import { attentionOps, attentionShapes } from './attention.ts';

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
    ...oversightOps(db),
    ...subjectOps(db),
    ...toolSchemaOps(db),
    ...claimOps(db),
    ...noteOps(db),
    ...attentionOps(db),
  };
}

/** The shape of every operation, gathered from the modules that hold their SQL; the type makes it exhaustive over {@link StoreTx}. */
const SHAPES: { [K in keyof StoreTx]: OpShape } = {
  ...threadShapes,
  ...requestShapes,
  ...ledgerShapes,
  ...jobShapes,
  ...auditShapes,
  ...reviewerShapes,
  ...sessionShapes,
  ...oversightShapes,
  ...subjectShapes,
  ...toolSchemaShapes,
  ...claimShapes,
  ...noteShapes,
  ...attentionShapes,
};

type Op = (...args: unknown[]) => Promise<unknown>;

/**
 * The operations as a Store exposes them outside a caller's transaction, so
 * each runs "in its own" as {@link StoreTx} promises: one-statement operations
 * through `single` (the backend's plain path), the rest through `transaction`.
 * With `groupWrites`, one-statement writes also go through `transaction`, where
 * concurrent ones share a commit (SQLite's group commit) instead of each syncing alone. `transaction`
 * is told which operation it runs.
 */
export function standaloneOps(
  ops: StoreTx,
  single: <T>(fn: () => Promise<T>) => Promise<T>,
  transaction: <T>(fn: (tx: StoreTx) => Promise<T>, op?: string) => Promise<T>,
  opts: { groupWrites?: boolean } = {},
): StoreTx {
  const wrapped = Object.entries(ops as unknown as Record<string, Op>).map(([name, op]): [string, Op] =>
    SHAPES[name as keyof StoreTx] === 'read' || (SHAPES[name as keyof StoreTx] === 'write' && !opts.groupWrites)
      ? [name, (...args) => single(() => op(...args))]
      : [name, (...args) => transaction((tx) => (tx as unknown as Record<string, Op>)[name]!(...args), name)],
  );
  return Object.fromEntries(wrapped) as unknown as StoreTx;
}
