import type { AggregateQuery, ExecutionRow } from './rows.ts';

/** An execution that already finished when it is recorded ({@link LedgerStoreOps.recordExecutions}). */
export type FinishedExecution = Pick<
  ExecutionRow,
  'key' | 'threadId' | 'tool' | 'args' | 'actionHash' | 'result' | 'error' | 'createdAt' | 'updatedAt'
> & { status: 'succeeded' | 'failed' | 'abandoned'; tier: string | null };

/** An execution claim as its caller writes it (the ledger sets status, attempts and the rest). */
export type NewClaim = Omit<ExecutionRow, 'status' | 'attempts' | 'result' | 'error' | 'updatedAt'>;

/** The execute-once ledger and its aggregates (src/store/sql/ledger.ts). */
export interface LedgerStoreOps {
  // execute-once ledger
  /**
   * Claim execution under `key`. Returns the existing row when it finished or
   * is leased by someone else; returns `claimed: true` when the caller now holds it.
   */
  claimExecution(e: NewClaim, now: number): Promise<{ claimed: boolean; row: ExecutionRow }>;
  /**
   * Claim a key nobody can hold yet (a request's action, claimed in the transaction that authorized
   * it): one plain insert that travels with the COMMIT. A key already there fails the transaction;
   * with `taken`, as a checked write failing it with `taken()` (for a key that is almost always new:
   * the caller then claims it asking, {@link claimExecution}).
   */
  insertClaim(e: NewClaim, now: number, taken?: () => Error): Promise<void>;
  /**
   * Give back a claim that ran nothing (first attempt, still `owner`'s, still running): the row goes,
   * as if never claimed. False when it is not so (taken over, finished): then it is not ours to give.
   */
  releaseExecution(key: string, owner: string): Promise<boolean>;
  /** Extend a running execution's lease while its side effect is still going; false if it is not `owner`'s any more. */
  renewExecution(key: string, owner: string, leaseUntil: number): Promise<boolean>;
  finishExecution(
    key: string,
    owner: string,
    outcome: { status: 'succeeded' | 'failed' | 'abandoned'; result?: unknown; error?: string },
    now: number,
  ): Promise<boolean>;
  /**
   * {@link finishExecution} as a checked write, for the process that holds the claim: sent without
   * waiting on PostgreSQL (it travels with the outcome's other writes and its COMMIT); if `owner`
   * no longer holds the running claim, the transaction fails with `lost()` and nothing of it is written.
   */
  finishHeldExecution(
    key: string,
    owner: string,
    outcome: { status: 'succeeded' | 'failed'; result?: unknown; error?: string },
    now: number,
    lost: () => Error,
  ): Promise<void>;
  getExecution(key: string): Promise<ExecutionRow | undefined>;
  /**
   * Record finished executions that ran without a claim, in one statement: calls whose keys were
   * new to them (nothing can repeat them), recorded after they ran (src/engine/unclaimed.ts). A key
   * already present is left as it is.
   */
  recordExecutions(rows: ReadonlyArray<FinishedExecution>): Promise<void>;
  listExecutionsForRequest(requestId: string): Promise<ExecutionRow[]>;
  aggregate(q: AggregateQuery): Promise<number>;
}
