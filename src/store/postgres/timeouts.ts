import { ConfigError } from '../../core/index.ts';

/**
 * How long the PostgreSQL store waits before it gives up, so a database that stops answering (a
 * network partition, a peer gone without a reset) fails requests fast with `503 store_unavailable`
 * instead of hanging them. Each is a whole number of milliseconds; 0 turns that deadline off.
 */
export interface PgTimeouts {
  /**
   * Opening a connection, and waiting for a free one in the pool (default 5000;
   * `INTERLOCK_PG_CONNECT_TIMEOUT_MS`).
   */
  connectTimeoutMs?: number;
  /**
   * One statement (default 15000; `INTERLOCK_PG_STATEMENT_TIMEOUT_MS`): the server cancels a statement
   * running longer (`statement_timeout`), and the client gives up on an answer that has not come
   * {@link CLIENT_GRACE_MS} later (a silent network) and drops the connection. Migrations are exempt.
   */
  statementTimeoutMs?: number;
  /**
   * A transaction left open without a statement (default 30000;
   * `INTERLOCK_PG_IDLE_IN_TRANSACTION_TIMEOUT_MS`): the server ends its session and frees its locks,
   * so a process that stalls mid-transaction, or whose connection a partition cut without the server
   * noticing, cannot hold rows others wait for. Interlock's own transactions never wait on anything
   * but the database between statements.
   */
  idleInTransactionTimeoutMs?: number;
  /**
   * TCP keepalive on every pooled and listening connection after this much idle time (default 10000;
   * `INTERLOCK_PG_KEEPALIVE_MS`), and how often the live-events listener checks its connection answers.
   */
  keepAliveMs?: number;
}

/** The deadlines in force, every one resolved. */
export type ResolvedPgTimeouts = Required<PgTimeouts>;

/** The client waits this long past `statement_timeout`, so a slow statement gets the server's clean cancel first. */
export const CLIENT_GRACE_MS = 1000;

const SETTINGS: ReadonlyArray<{ key: keyof PgTimeouts; env: string; fallback: number }> = [
  { key: 'connectTimeoutMs', env: 'INTERLOCK_PG_CONNECT_TIMEOUT_MS', fallback: 5000 },
  { key: 'statementTimeoutMs', env: 'INTERLOCK_PG_STATEMENT_TIMEOUT_MS', fallback: 15_000 },
  { key: 'idleInTransactionTimeoutMs', env: 'INTERLOCK_PG_IDLE_IN_TRANSACTION_TIMEOUT_MS', fallback: 30_000 },
  { key: 'keepAliveMs', env: 'INTERLOCK_PG_KEEPALIVE_MS', fallback: 10_000 },
];

/** The deadlines from `options`, else the environment, else the defaults; anything else than a whole number ≥ 0 is refused. */
export function resolveTimeouts(options: PgTimeouts, env: NodeJS.ProcessEnv = process.env): ResolvedPgTimeouts {
  const out = {} as ResolvedPgTimeouts;
  for (const { key, env: name, fallback } of SETTINGS) {
    const given = options[key];
    const raw = given ?? (env[name] === undefined || env[name] === '' ? fallback : Number(env[name]));
    if (!Number.isInteger(raw) || raw < 0 || raw > 2 ** 31 - 1 - CLIENT_GRACE_MS) {
      const where = given === undefined ? `the environment variable ${name}` : `"${key}"`;
      throw new ConfigError(
        `createPostgresStore: ${where} must be a whole number of milliseconds, 0 (off) or more (default ${fallback}), not ${String(given ?? env[name])}.`,
      );
    }
    out[key] = raw;
  }
  return out;
}

/** `pg` connection settings for the deadlines (pooled connections and the listener alike). */
export function pgClientSettings(t: ResolvedPgTimeouts): {
  connectionTimeoutMillis: number;
  statement_timeout?: number;
  query_timeout?: number;
  idle_in_transaction_session_timeout?: number;
  keepAlive: boolean;
  keepAliveInitialDelayMillis: number;
} {
  return {
    connectionTimeoutMillis: t.connectTimeoutMs,
    ...(t.statementTimeoutMs > 0
      ? { statement_timeout: t.statementTimeoutMs, query_timeout: t.statementTimeoutMs + CLIENT_GRACE_MS }
      : {}),
    ...(t.idleInTransactionTimeoutMs > 0 ? { idle_in_transaction_session_timeout: t.idleInTransactionTimeoutMs } : {}),
    keepAlive: t.keepAliveMs > 0,
    keepAliveInitialDelayMillis: t.keepAliveMs,
  };
}

/** A client-side deadline long enough for any migration (`setTimeout`'s largest). */
export const UNBOUNDED_QUERY_MS = 2 ** 31 - 1;
