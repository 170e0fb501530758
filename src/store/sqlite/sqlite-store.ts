import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { StoreError } from '../../core/index.ts';
import type { ProcessClocks, Store, StoreTx } from '../types.ts';
import type { Dialect, SqlExecutor } from '../sql/executor.ts';
import { sqlOps, standaloneOps } from '../sql/repository.ts';
import { applyMigrations } from '../sql/migrate.ts';
import { groupCommit, type GroupCommit } from './group-commit.ts';
import { inlineLink, workerLink, type SqliteLink } from './link.ts';
import { openSession } from './session.ts';
import { createSteadyClock } from './clock.ts';
import { wholeMs } from '../whole-ms.ts';

/** Options of the embedded store. */
export interface SqliteStoreOptions {
  /** Database file, or `:memory:`. Default `./data/interlock.db` under the working folder. */
  path?: string;
  /**
   * `full` (default) syncs the WAL on every commit before it is answered: a committed pause or
   * decision survives power loss. The one exception is a run lease taken, renewed or given back,
   * whose loss with the machine changes nothing (docs/architecture.md). `normal` survives a crash of
   * the process, not of the machine.
   */
  durability?: 'full' | 'normal';
  /**
   * Where the connection runs. `true` (default for a file; an in-memory database runs on the event loop,
   * having no disk to stall and no other process to hold its lock): on a worker thread of its own, so a write lock held
   * by another process or a stalled disk blocks that thread and not the service (`/healthz` answers,
   * the API refuses with 503 after `waitMs`). `false`: on the event loop, a little faster per statement,
   * for a bundled app that cannot load the worker file or a single-shot script; a stall then stops the process.
   * `INTERLOCK_SQLITE_THREAD=0` sets `false`.
   */
  thread?: boolean;
  /**
   * How long a statement may wait on the database (a lock another process holds, a stalled disk) before
   * it fails with `SQLITE_WAIT_TIMEOUT` — the API's 503 `store_unavailable` — in ms (default 5000;
   * `INTERLOCK_SQLITE_WAIT_MS`). SQLite's own busy timeout is set to the same.
   */
  waitMs?: number;
  /**
   * How far the host's clock may step from the store's steady clock before the process says so, in ms
   * (default 2000; `INTERLOCK_CLOCK_TOLERANCE_MS`): a warning logged once, the `interlock_clock_skewed`
   * metric and `/readyz`'s `clock` detail. Times never jump whatever the step (see {@link createSteadyClock}).
   */
  clockToleranceMs?: number;
  /** The process's clocks (default `Date.now`, `performance.now`); tests pass a stepped one. */
  processClocks?: Partial<ProcessClocks>;
  /** Where the one clock warning goes (default `console.warn`). */
  warn?: (message: string) => void;
}

const dialect: Dialect = {
  name: 'sqlite',
  forUpdate: '',
  forUpdateSkipLocked: '',
  // json_extract gives 1/0 for JSON true/false; PostgreSQL's ->> gives 'true'/'false'.
  jsonText: (col, p) =>
    `(CASE json_type(${col}, '$.' || ${p}) WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE CAST(json_extract(${col}, '$.' || ${p}) AS TEXT) END)`,
  // Only JSON numbers, as in PostgreSQL (CAST would turn '12abc' into 12).
  jsonNumber: (col, p) =>
    `(CASE WHEN json_type(${col}, '$.' || ${p}) IN ('integer', 'real') THEN CAST(json_extract(${col}, '$.' || ${p}) AS REAL) END)`,
  auditFunction: false,
};

/**
 * Writes that commit without a WAL sync of their own when no other write shares their commit: a
 * thread's run lease taken, renewed or given back. A lease is a claim of a living process; if a power
 * loss undoes it, it undoes it together with everything after it up to the next sync (the WAL syncs
 * in order), and the process that held it stopped with the machine. Every write that anything outside
 * the process may act on (a pause, a decision, an execution's claim before its side effect, an
 * outcome, a checkpoint a caller is told of) still syncs before anyone hears of it. One sync fewer
 * per run: ~0.2–0.5 ms of a gated cycle's or an auto-tier turn's 2–5 ms on this project's disks.
 */
const UNSYNCED: ReadonlySet<string> = new Set(['claimThread', 'renewThreadLease', 'releaseThread']);

/** One SQLite connection, shared by the stores opened on its file in this process, with its queue. */
interface Connection {
  link: SqliteLink;
  serialize: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Run a transaction; concurrent ones share a commit (see {@link groupCommit}, and its `unsynced`). */
  transact: GroupCommit;
  refs: number;
  closed: boolean;
  /**
   * A transaction of this process runs its function now: writes nobody waits for are deferred to the
   * next statement that is waited for, one message to the worker thread instead of one each.
   */
  deferring: boolean;
}

/**
 * Connections by file. Stores opened on one file in one process share a connection and its queue:
 * one writer per file and process, and a second connection would only wait on the first's lock.
 */
const connections = new Map<string, Connection>();

function open(path: string, durability: 'full' | 'normal', thread: boolean, waitMs: number): Connection {
  const existing = path === ':memory:' ? undefined : connections.get(path);
  if (existing) {
    existing.refs++;
    return existing;
  }
  const session = { path, durability, busyTimeoutMs: waitMs };
  let link: SqliteLink;
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    if (thread) {
      // Opened here first, briefly: a folder that cannot be written is refused now, not at the first
      // statement, and the file is in WAL mode before the worker opens it.
      if (path !== ':memory:') openSession(session).close();
      link = workerLink({ ...session, waitMs });
    } else link = inlineLink(session);
  } catch (err) {
    throw new StoreError(
      `Cannot open the SQLite database at ${path}: ${(err as Error).message}. Check that the folder is writable, or set INTERLOCK_DATA_DIR.`,
      err,
    );
  }
  // One connection: a transaction must not interleave with another's statements.
  let tail: Promise<unknown> = Promise.resolve();
  const serialize = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  };
  const conn: Connection = {
    link,
    refs: 1,
    closed: false,
    deferring: false,
    serialize,
    transact: groupCommit(link, serialize, durability),
  };
  if (path !== ':memory:') connections.set(path, conn);
  return conn;
}

/** The shared SQL's executor over the connection, counting statements. */
function executor(conn: Connection, stats: { statements: number }): SqlExecutor {
  const { link } = conn;
  return {
    all(sql, params = []) {
      stats.statements++;
      return link.all(sql, params);
    },
    run(sql, params = []) {
      stats.statements++;
      return link.run(sql, params);
    },
    // Inside a transaction's function, as on PostgreSQL: the write travels with the next statement
    // someone waits for (or the transaction's end), and its failure is that statement's.
    async send(sql, params = []) {
      stats.statements++;
      if (conn.deferring && link.defer) return link.defer(sql, params);
      await link.run(sql, params);
    },
    async sendExpecting(sql, params, rows, fail) {
      stats.statements++;
      if (conn.deferring && link.defer) return link.defer(sql, params, { rows, fail });
      if ((await link.run(sql, params)) !== rows) throw fail();
    },
  };
}

/**
 * The embedded store on Node's built-in `node:sqlite` (no native addon), in WAL
 * mode. One connection per file and process, on a worker thread of its own (see
 * `thread`); transactions are serialized in-process by a queue and across
 * processes by `BEGIN IMMEDIATE` with a busy timeout.
 * Transactions that queue up together share one commit (group commit): each
 * caller still hears back only after the WAL sync that makes its writes durable.
 */
export function createSqliteStore(options: SqliteStoreOptions = {}): Store {
  const path =
    options.path === ':memory:'
      ? ':memory:'
      : resolve(options.path ?? resolve(process.env.INTERLOCK_DATA_DIR ?? './data', 'interlock.db'));
  const clock = createSteadyClock({
    clocks: {
      wall: options.processClocks?.wall ?? Date.now,
      monotonic: options.processClocks?.monotonic ?? (() => performance.now()),
    },
    toleranceMs: wholeMs(
      'createSqliteStore',
      options.clockToleranceMs,
      'INTERLOCK_CLOCK_TOLERANCE_MS',
      2000,
      'clockToleranceMs',
    ),
    ...(options.warn ? { warn: options.warn } : {}),
  });
  const waitMs = wholeMs('createSqliteStore', options.waitMs, 'INTERLOCK_SQLITE_WAIT_MS', 5000, 'waitMs');
  // An in-memory database has no disk to stall and no other process to hold its lock: nothing for the
  // worker thread to keep off the event loop, which would only pay its hops (twice a turn's time).
  const conn = open(
    path,
    options.durability ?? 'full',
    options.thread ?? (process.env.INTERLOCK_SQLITE_THREAD !== '0' && path !== ':memory:'),
    waitMs,
  );
  const { link, serialize } = conn;
  const stats = {
    transactions: 0,
    statements: 0,
    get hops() {
      return link.hops;
    },
    get syncs() {
      return conn.transact.syncs;
    },
  };
  const exec = executor(conn, stats);
  const ops = sqlOps(exec, dialect);
  let closed = false;

  const transaction = <T>(fn: (tx: StoreTx) => Promise<T>, unsynced = false): Promise<T> =>
    conn.transact(async () => {
      if (closed || conn.closed) throw new StoreError('The store is closed; create a new one.');
      stats.transactions++;
      // The group commit runs one member's function at a time: the flag is this member's. Its deferred
      // writes are sent before it counts as done, so a failure among them is its own, not the next member's.
      conn.deferring = true;
      try {
        const value = await fn(ops);
        await link.flush?.();
        return value;
      } catch (err) {
        link.discard?.();
        throw err;
      } finally {
        conn.deferring = false;
      }
    }, unsynced);

  // Outside a transaction each call runs alone, after whatever transaction is in flight; the run
  // lease's writes commit without a sync of their own (see `UNSYNCED`).
  const single = standaloneOps(ops, serialize, (fn, op) => transaction(fn, op !== undefined && UNSYNCED.has(op)), {
    groupWrites: true,
  });

  return {
    ...single,
    name: 'sqlite',
    clock,
    capabilities: { multiProcess: false, skipLocked: false },
    stats,
    // Callers' transactions always sync; only the lease's one-statement writes above ask not to.
    transaction: (fn) => transaction(fn),
    // One connection, statements in order: the operations as the Store runs them.
    batch: (fn) => fn(single),
    async migrate() {
      await link.unbounded(() => applyMigrations((fn) => transaction(() => fn(exec)), dialect));
    },
    unsafeQuery: (sql, params = []) => serialize(() => exec.all(sql, params)),
    async threadStorageBytes(threadId) {
      return serialize(async () => {
        const [a] = await link.all(
          `SELECT COALESCE(SUM(LENGTH(CAST(body AS BLOB))), 0) AS n FROM il_messages WHERE thread_id = $1`,
          [threadId],
        );
        const [b] = await link.all(
          `SELECT COALESCE(SUM(LENGTH(CAST(state AS BLOB))), 0) AS n FROM il_checkpoints WHERE thread_id = $1`,
          [threadId],
        );
        return Number(a?.n ?? 0) + Number(b?.n ?? 0);
      });
    },
    async close() {
      await serialize(async () => {
        if (closed) return;
        closed = true;
        if (--conn.refs > 0) return;
        conn.closed = true;
        connections.delete(path);
        await link.close();
      });
    },
  };
}
