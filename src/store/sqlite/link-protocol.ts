// What the SQLite store's link and its worker thread say to each other (src/store/sqlite/link.ts).

/** Index of the request flag in the shared control words: 1 while a request waits on the port. */
export const REQUEST = 0;
/** Index of the answer flag: 1 once the answer is on the port. */
export const ANSWER = 1;
/** Busy-wait iterations before a side sleeps on a flag (tens of microseconds). */
export const SPIN = 20_000;

/** A statement for the worker thread, or the order to close. */
export type LinkStatement =
  { op: 'all' | 'run'; sql: string; params?: readonly unknown[] } | { op: 'exec'; sql: string } | { op: 'close' };

/**
 * A write nobody waits for, deferred inside a transaction until the next statement someone does wait
 * for: with `rows`, it must change exactly that many rows (a checked write).
 */
export interface DeferredWrite {
  sql: string;
  params: readonly unknown[];
  rows?: number;
}

/**
 * What goes over the port: a statement, or deferred writes run in order before one (`last`; none when
 * the writes are only flushed). The first write that fails stops the batch: `last` does not run.
 */
export type LinkRequest =
  LinkStatement | { op: 'batch'; writes: readonly DeferredWrite[]; last?: Exclude<LinkStatement, { op: 'close' }> };

/** An error as it crosses the thread boundary: node:sqlite's `code`, `errcode` and `errstr` survive. */
export interface WireError {
  message: string;
  code?: string;
  errcode?: number;
  errstr?: string;
}

/**
 * The worker's answer; `tx`: a transaction is open after the statement; `fatal`: the database never
 * opened; `at`: the deferred write of a batch that failed (`checked`: it changed another number of rows).
 */
export type LinkReply =
  { value: unknown; tx: boolean } | { error: WireError; tx: boolean; fatal?: true; at?: number; checked?: true };
