import pg from 'pg';
import { createHash } from 'node:crypto';
import { ConfigError, StoreError } from '../../core/index.ts';
import type { Store, StoreTx } from '../types.ts';
import type { Dialect, Row, SqlExecutor } from '../sql/executor.ts';
import { sqlOps, standaloneOps } from '../sql/repository.ts';
import { applyMigrations } from '../sql/migrate.ts';
import { wholeMs } from '../whole-ms.ts';
import { createPgEventBus, eventChannel } from './event-bus.ts';
import { createDbClock, type DbClock, type ProcessClocks } from './clock.ts';
import { checked, expecting, pipelinedSession, pipelinedTx, type PgStats } from './pipeline.ts';
import {
  pgClientSettings,
  resolveTimeouts,
  UNBOUNDED_QUERY_MS,
  type PgTimeouts,
  type ResolvedPgTimeouts,
} from './timeouts.ts';

/**
 * Options of the PostgreSQL store. The deadlines ({@link PgTimeouts}) default to the
 * `INTERLOCK_PG_*_MS` environment variables, else 5 s to connect, 15 s per statement,
 * 30 s idle in a transaction and TCP keepalive after 10 s.
 */
export interface PostgresStoreOptions extends PgTimeouts {
  /** `postgres://user@host:port/db`; default `DATABASE_URL`. */
  connectionString?: string;
  /** Schema holding Interlock's tables (created if missing). Default `public`. */
  schema?: string;
  /** Pool size (default 10). */
  max?: number;
  /**
   * How far this process's clock may be from the database's before it says so, in ms (default 2000;
   * `INTERLOCK_CLOCK_TOLERANCE_MS`): a warning logged once, the `interlock_clock_skewed` metric and
   * `/readyz`'s `clock` detail. Times are corrected whatever the offset (see {@link Store.clock}).
   */
  clockToleranceMs?: number;
  /** How often the offset to the database's clock is measured again, in ms (default 30 000; 0: only at `migrate`). */
  clockCheckMs?: number;
  /** The process's clocks (default `Date.now`, `performance.now`); tests pass a skewed one. */
  processClocks?: Partial<ProcessClocks>;
  /** Where the one clock warning goes (default `console.warn`). */
  warn?: (message: string) => void;
}

/** The database's clock for this store: the first measurement at `migrate`, then every `clockCheckMs`. */
function dbClock(pool: pg.Pool, options: PostgresStoreOptions): DbClock {
  const toleranceMs = wholeMs(
    'createPostgresStore',
    options.clockToleranceMs,
    'INTERLOCK_CLOCK_TOLERANCE_MS',
    2000,
    'clockToleranceMs',
  );
  const intervalMs = wholeMs(
    'createPostgresStore',
    options.clockCheckMs,
    'INTERLOCK_CLOCK_CHECK_MS',
    30_000,
    'clockCheckMs',
  );
  return createDbClock({
    // clock_timestamp(), not now(): now() is the transaction's start, and this must be the moment of reading.
    read: async () =>
      Number(
        (await pool.query<{ t: number }>('SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint AS t')).rows[0]
          ?.t,
      ),
    clocks: {
      wall: options.processClocks?.wall ?? Date.now,
      monotonic: options.processClocks?.monotonic ?? (() => performance.now()),
    },
    toleranceMs,
    intervalMs,
    ...(options.warn ? { warn: options.warn } : {}),
  });
}

const dialect: Dialect = {
  name: 'postgres',
  forUpdate: ' FOR UPDATE',
  forUpdateSkipLocked: ' FOR UPDATE SKIP LOCKED',
  jsonText: (col, p) => `(${col}::jsonb ->> ${p}::text)`,
  // Only JSON numbers: a cast of any other text would fail the whole query.
  jsonNumber: (col, p) =>
    `(CASE WHEN jsonb_typeof(${col}::jsonb -> ${p}::text) = 'number' THEN (${col}::jsonb ->> ${p}::text)::double precision END)`,
  auditFunction: true,
};

// BIGINT columns hold epoch milliseconds and sequence numbers, all within 2^53.
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
    oid === 20
      ? (v: string) => Number(v)
      : (pg.types.getTypeParser as (o: number, f?: string) => unknown)(
          oid,
          format,
        )) as pg.CustomTypesConfig['getTypeParser'],
};

const MIGRATION_LOCK = 0x1a7e_10c;

/**
 * The pool listens for errors on idle clients only. A client checked out for a
 * transaction whose connection the server ends (a restart, a failover,
 * pg_terminate_backend) emits 'error' with no listener, which would crash the
 * process: listen while it is out, and destroy it on release if it was lost.
 * Its queries fail on their own, so the transaction still rolls back and throws.
 */
function watchCheckedOut(client: pg.PoolClient): { release(broken: boolean): void } {
  let lost = false;
  const onError = () => (lost = true);
  client.on('error', onError);
  return {
    release(broken) {
      const destroy = broken || lost;
      // A client going back to the pool is the pool's to watch again; one being destroyed keeps our listener for its last words.
      if (!destroy) client.off('error', onError);
      client.release(destroy);
    },
  };
}
const RETRYABLE = new Set(['40001', '40P01']);

/** Named prepared statements: PostgreSQL parses and plans each SQL text once per connection. */
const names = new Map<string, string>();
function statementName(sql: string): string {
  let n = names.get(sql);
  if (!n) {
    n = `il_${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`;
    if (names.size < 2000) names.set(sql, n);
  }
  return n;
}

const named = (sql: string, params: readonly unknown[]): pg.QueryConfig => ({
  name: statementName(sql),
  text: sql,
  values: params as unknown[],
});
const unnamed = (sql: string, params: readonly unknown[]): pg.QueryConfig => ({
  text: sql,
  values: params as unknown[],
});
/** Migration statements: no client-side deadline (an index build on a large table takes what it takes). */
const migration = (sql: string, params: readonly unknown[] = []): pg.QueryConfig =>
  ({ text: sql, values: params as unknown[], query_timeout: UNBOUNDED_QUERY_MS }) as pg.QueryConfig;

/** Statements one at a time, each awaited (outside a transaction, and for migrations). */
function executor(client: pg.ClientBase | pg.Pool, stats: PgStats, q = named): SqlExecutor {
  const run = async (sql: string, params: readonly unknown[] = []) => {
    stats.statements++;
    stats.roundTrips++;
    return client.query<Row>(q(sql, params));
  };
  return {
    all: async (sql, params) => (await run(sql, params)).rows,
    run: async (sql, params) => (await run(sql, params)).rowCount ?? 0,
    send: async (sql, params) => void (await run(sql, params)),
    async sendExpecting(sql, params, rows, fail) {
      await run(expecting(sql, params.length, rows), [...params, fail().message]).catch((err: unknown) => {
        throw checked(err, fail);
      });
    },
  };
}

/** A client from the pool for a transaction or a batch; a failure to connect says where to look. */
async function connect(pool: pg.Pool): Promise<pg.PoolClient> {
  try {
    return await pool.connect();
  } catch (err) {
    throw new StoreError(
      `Cannot connect to PostgreSQL: ${(err as Error).message}. Check DATABASE_URL and that the server is up.`,
      err,
    );
  }
}

/** The pool for validated options: the connection string (or DATABASE_URL) and a plain schema name. */
function openPool(options: PostgresStoreOptions): {
  pool: pg.Pool;
  connectionString: string;
  schema: string;
  timeouts: ResolvedPgTimeouts;
} {
  const connectionString = options.connectionString ?? process.env.DATABASE_URL;
  if (!connectionString)
    throw new ConfigError(
      'createPostgresStore needs "connectionString" or the DATABASE_URL environment variable (postgres://user@host:5432/db).',
    );
  const schema = options.schema ?? 'public';
  if (!/^[a-z_][a-z0-9_]*$/.test(schema))
    throw new ConfigError(`Schema name "${schema}" must be lower-case letters, digits and underscores.`);
  const timeouts = resolveTimeouts(options);
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    types,
    // Fail fast when the database stops answering: every wait has a deadline (see timeouts.ts).
    ...pgClientSettings(timeouts),
    // Statements of a transaction whose answers nobody waits for travel together (see pipeline.ts).
    pipeline: true,
    options: `-c search_path=${schema}`,
  });
  // An idle client losing its connection (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  return { pool, connectionString, schema, timeouts };
}

/** `fn` in a pipelined transaction on a client of its own; retried (up to 5 attempts) on serialization failures and deadlocks. */
async function transaction<T>(
  pool: pg.Pool,
  stats: PgStats,
  channel: string,
  fn: (tx: StoreTx) => Promise<T>,
  attempt = 1,
): Promise<T> {
  const client = await connect(pool);
  const lost = watchCheckedOut(client);
  stats.transactions++;
  const tx = pipelinedTx(client, stats, named);
  const ops: StoreTx = {
    ...sqlOps(tx.exec, dialect),
    // NOTIFY is transactional: delivered at COMMIT, in commit order, and never for a rollback. It
    // travels with the COMMIT (no round trip of its own).
    publishOnCommit: (message) => tx.exec.send('SELECT pg_notify($1, $2)', [channel, JSON.stringify(message)]),
  };
  try {
    const result = await fn(ops);
    await tx.commit();
    lost.release(false);
    return result;
  } catch (err) {
    let broken = false;
    try {
      await tx.rollback();
    } catch {
      broken = true;
    }
    lost.release(broken);
    const code = (err as { code?: string }).code;
    if (code && RETRYABLE.has(code) && attempt < 5) return transaction(pool, stats, channel, fn, attempt + 1);
    throw err;
  }
}

/** `fn` on one client outside a transaction, its statements pipelined (see {@link Store.batch}). */
async function batch<T>(pool: pg.Pool, stats: PgStats, fn: (ops: StoreTx) => Promise<T>): Promise<T> {
  const client = await connect(pool);
  const lost = watchCheckedOut(client);
  let broken = false;
  try {
    return await fn(sqlOps(pipelinedSession(client, stats, named), dialect));
  } catch (err) {
    // Answers of statements fn did not wait for may still be on their way: a fresh connection for the next user.
    broken = true;
    throw err;
  } finally {
    lost.release(broken);
  }
}

/** Pending migrations, one transaction each under an advisory lock, so concurrent starters apply each once. */
async function migrate(pool: pg.Pool, stats: PgStats, schema: string): Promise<void> {
  await applyMigrations(async (fn) => {
    const client = await pool.connect();
    const lost = watchCheckedOut(client);
    let broken = false;
    try {
      await client.query(migration('BEGIN'));
      // No statement deadline here: waiting for a concurrent migrator, or a long index build, is expected.
      await client.query(migration('SET LOCAL statement_timeout = 0'));
      await client.query(migration('SET LOCAL idle_in_transaction_session_timeout = 0'));
      // Transaction-scoped lock: concurrent starters wait, then see the migration applied.
      await client.query(migration(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`));
      await client.query(migration(`CREATE SCHEMA IF NOT EXISTS ${schema}`));
      const result = await fn(executor(client, stats, migration));
      await client.query(migration('COMMIT'));
      return result;
    } catch (err) {
      await client.query(migration('ROLLBACK')).catch(() => (broken = true));
      throw err;
    } finally {
      lost.release(broken);
    }
  }, dialect);
}

/**
 * The PostgreSQL store, for several processes on one database. Work is claimed
 * with `FOR UPDATE SKIP LOCKED`; guarded writes lock the row they change.
 */
export function createPostgresStore(options: PostgresStoreOptions = {}): Store {
  let closed = false;
  const { pool, connectionString, schema, timeouts } = openPool(options);
  const stats: PgStats = { transactions: 0, statements: 0, roundTrips: 0 };
  const ops = sqlOps(executor(pool, stats), dialect);
  const bus = createPgEventBus({ pool, connectionString, types, schema, timeouts });
  const channel = eventChannel(schema);
  const clock = dbClock(pool, options);

  return {
    ...standaloneOps(
      ops,
      (fn) => fn(),
      (fn) => transaction(pool, stats, channel, fn),
    ),
    name: 'postgres',
    capabilities: { multiProcess: true, skipLocked: true },
    stats,
    transaction: (fn) => transaction(pool, stats, channel, fn),
    batch: (fn) => batch(pool, stats, fn),
    async migrate() {
      await migrate(pool, stats, schema);
      // Every process opens the store through migrate: from here on its times are the database's.
      await clock.measure();
    },
    clock: { now: () => clock.now(), skew: () => clock.skew() },
    unsafeQuery: (sql, params = []) => executor(pool, stats, unnamed).all(sql, params),
    async threadStorageBytes(threadId) {
      const r = await pool.query<{ n: number }>(
        `SELECT (SELECT COALESCE(SUM(octet_length(body)), 0) FROM il_messages WHERE thread_id = $1)
              + (SELECT COALESCE(SUM(octet_length(state)), 0) FROM il_checkpoints WHERE thread_id = $1) AS n`,
        [threadId],
      );
      return Number(r.rows[0]?.n ?? 0);
    },
    events: bus.events,
    async close() {
      // Closing twice is a no-op, as on SQLite: the owner and a test harness may both close a store.
      if (closed) return;
      closed = true;
      clock.stop();
      await bus.close();
      await pool.end();
    },
  };
}
