import type pg from 'pg';
import { StoreError } from '../../core/index.ts';
import type { Row, SqlExecutor } from '../sql/executor.ts';

/** What the PostgreSQL store counts, for profiling the hot path. */
export interface PgStats {
  transactions: number;
  statements: number;
  /** Times the process waited for the server: a statement or COMMIT whose answer it awaited. */
  roundTrips: number;
}

/** A named prepared statement (planned once per connection), or plain text for migrations. */
export type QueryOf = (sql: string, params: readonly unknown[]) => pg.QueryConfig;

/**
 * One transaction on a pipelining client (`pg`'s `pipeline` mode: queries are written without
 * waiting for the answers before them, each with its own Sync).
 *
 * BEGIN and every {@link SqlExecutor.send} are written and not waited for; they travel with the
 * next statement whose answer the caller needs, or with the COMMIT, so a transaction of five
 * writes and a COMMIT is one round trip instead of seven. The writes are corked together so
 * one burst is one `write` system call. If a sent write fails, the server aborts the
 * transaction: every later statement fails with "current transaction is aborted" and COMMIT
 * answers ROLLBACK. The first failure is what the caller sees — from the next awaited statement
 * or from {@link PipelinedTx.commit} — so a unique violation reads as one, not as its echo.
 */
export interface PipelinedTx {
  exec: SqlExecutor;
  /** COMMIT; throws the first failure of the transaction instead, if there was one (the server rolled it back). */
  commit(): Promise<void>;
  /** ROLLBACK; throws only when the connection cannot take it (the caller then destroys the client). */
  rollback(): Promise<void>;
}

/**
 * Statements on one pipelining client with no transaction around them (see Store.batch): each
 * commits on its own, in the order sent; those asked for together share one round trip.
 */
export function pipelinedSession(client: pg.ClientBase, stats: PgStats, q: QueryOf): SqlExecutor {
  return pipelinedTx(client, stats, q, { begin: false }).exec;
}

/** Statements written to one pipelining client, corked into bursts, with the first failure among those nobody awaited. */
interface Channel {
  /** Write without waiting: corked, so it leaves with the next awaited statement (or on the next turn of the loop). */
  write(config: pg.QueryConfig | string, mapError?: (err: unknown) => Error): void;
  /** Write and wait: one round trip, which also carries everything written before it. */
  ask<R>(config: pg.QueryConfig | string, read: (r: pg.QueryResult<Row>) => R): Promise<R>;
  /** Send what is corked now. */
  flush(): void;
  /** Wait for the answers of every statement written so far; the first failure among them, if any. */
  settled(): Promise<Error | undefined>;
}

/**
 * `inTx`: a statement that fails aborts the transaction, so its failure is the transaction's, even
 * when its answer was asked for and nobody awaited it before the COMMIT went.
 */
function channel(client: pg.ClientBase, stats: PgStats, inTx: boolean): Channel {
  const stream = (client as unknown as { connection?: { stream?: { cork?(): void; uncork?(): void } } }).connection
    ?.stream;
  let corked = false;
  let failure: Error | undefined;
  let pending: Promise<unknown>[] = [];
  /** Answers awaited right now: statements asked together (before the first answer) share one round trip. */
  let waiting = 0;

  const flush = () => {
    if (corked) {
      corked = false;
      stream?.uncork?.();
    }
  };
  return {
    flush,
    write(config, mapError) {
      if (!corked && stream?.cork) {
        stream.cork();
        corked = true;
        // Nothing should sit in the buffer if the caller awaits something other than the database.
        setImmediate(flush);
      }
      const p = client.query(config as pg.QueryConfig).then(
        () => undefined,
        (err: unknown) => {
          failure ??= mapError ? mapError(err) : (err as Error);
        },
      );
      pending.push(p);
    },
    async ask(config, read) {
      if (waiting++ === 0) stats.roundTrips++;
      const p = client.query<Row>(config as pg.QueryConfig);
      flush();
      try {
        const r = await p;
        if (failure !== undefined) throw failure;
        return read(r);
      } catch (err) {
        if (inTx) failure ??= err as Error;
        throw failure ?? err;
      } finally {
        waiting--;
      }
    },
    async settled() {
      await Promise.all(pending);
      pending = [];
      return failure;
    },
  };
}

/** One transaction on a pipelining client (see {@link PipelinedTx}); with `begin: false`, a session without one. */
export function pipelinedTx(
  client: pg.ClientBase,
  stats: PgStats,
  q: QueryOf,
  opts: { begin?: boolean } = {},
): PipelinedTx {
  const inTx = opts.begin !== false;
  const ch = channel(client, stats, inTx);
  if (inTx) ch.write('BEGIN');
  return {
    exec: {
      all(sql, params = []) {
        stats.statements++;
        return ch.ask(q(sql, params), (r) => r.rows);
      },
      run(sql, params = []) {
        stats.statements++;
        return ch.ask(q(sql, params), (r) => r.rowCount ?? 0);
      },
      // Outside a transaction no COMMIT would report a failure later: a write waits for its answer.
      send(sql, params = []) {
        stats.statements++;
        if (!inTx) return ch.ask(q(sql, params), () => undefined);
        ch.write(q(sql, params));
        return Promise.resolve();
      },
      sendExpecting(sql, params, rows, fail) {
        stats.statements++;
        const config = q(expecting(sql, params.length, rows), [...params, fail().message]);
        if (!inTx)
          return ch
            .ask(config, () => undefined)
            .catch((err: unknown) => {
              throw checked(err, fail);
            });
        ch.write(config, (err) => checked(err, fail));
        return Promise.resolve();
      },
    },
    async commit() {
      const tag = await ch.ask('COMMIT', (r) => r.command);
      // The answers arrive in order: every sent write has settled by now.
      const failure = await ch.settled();
      if (failure !== undefined) throw failure;
      // The server answers COMMIT with ROLLBACK when a statement of the transaction failed: never a success.
      if (tag === 'ROLLBACK')
        throw new StoreError(
          'The transaction was rolled back by the database: one of its statements failed. Retry it.',
        );
    },
    async rollback() {
      ch.flush();
      stats.roundTrips++;
      await client.query('ROLLBACK');
      await ch.settled();
    },
  };
}

/**
 * A write that fails on the server unless it changed exactly `rows` rows (`il_expect_rows`,
 * migration 7), so it can be sent without waiting and still fail its transaction: a check in
 * Node would come after the COMMIT that travelled with it.
 */
export function expecting(sql: string, paramCount: number, rows: number): string {
  return `WITH w AS (${sql} RETURNING 1) SELECT il_expect_rows((SELECT count(*) FROM w), ${rows}, $${paramCount + 1})`;
}

/** `il_expect_rows`'s refusal is the caller's own error; any other failure stays as it is. */
export function checked(err: unknown, fail: () => Error): Error {
  return (err as { code?: string }).code === EXPECT_ROWS_FAILED ? fail() : (err as Error);
}

/** The SQLSTATE `il_expect_rows` raises (migration 7). */
const EXPECT_ROWS_FAILED = 'P0001';
