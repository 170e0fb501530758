import { Worker } from 'node:worker_threads';
import { StoreError } from '../../core/index.ts';
import type { Row } from '../sql/executor.ts';
import { openSession, type SessionOptions } from './session.ts';

/** A statement sent to the store's worker thread (id 0: nobody waits for its answer). */
export type LinkRequest =
  | { id: number; op: 'all' | 'run'; sql: string; params?: readonly unknown[] }
  | { id: number; op: 'exec'; sql: string }
  | { op: 'close' };

/** An error as it crosses the thread boundary: node:sqlite's `code`, `errcode` and `errstr` survive. */
export interface WireError {
  message: string;
  code?: string;
  errcode?: number;
  errstr?: string;
}

/** The worker's answer; `tx`: a transaction is open after the statement. */
export type LinkReply =
  | { id: number; value: unknown; tx: boolean }
  | { id: number; error: WireError; tx: boolean }
  | { id: 0; fatal: WireError };

/**
 * The store's way to its SQLite connection: statements go in one at a time, in order (the store's
 * queue sees to that), and come back as promises.
 */
export interface SqliteLink {
  all(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Run a statement; the number of rows it changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /** BEGIN, COMMIT, SAVEPOINT …: statements without parameters or rows. */
  exec(sql: string): Promise<void>;
  /**
   * Send a statement nobody waits for (the ROLLBACK after a failure): it runs after those sent
   * before it, even when they are stuck, and its failure is ignored.
   */
  post(sql: string): void;
  /** A transaction is open, as of the last answer. */
  readonly inTransaction: boolean;
  /** Run `fn` with no deadline on its statements (migrations, which may rebuild an index for minutes). */
  unbounded<T>(fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The error code of a statement the database did not answer within the store's wait. */
export const SQLITE_WAIT_TIMEOUT = 'SQLITE_WAIT_TIMEOUT';

function revive(e: WireError): Error {
  return Object.assign(new Error(e.message), e);
}

function waitError(waitMs: number): Error {
  return Object.assign(
    new Error(
      `The SQLite database did not answer within ${waitMs} ms: another process holds its write lock, or the disk that holds it is stalled. ` +
        `Retry shortly; a write under way when this was said may still land (a retry with the same key is refused as a repeat, or a read shows it). ` +
        `INTERLOCK_SQLITE_WAIT_MS sets the wait.`,
    ),
    { code: SQLITE_WAIT_TIMEOUT },
  );
}

/** The connection on the event loop itself (`thread: false`): no hop, but a stall stops the process. */
export function inlineLink(o: SessionOptions): SqliteLink {
  const s = openSession(o);
  return {
    all: async (sql, params = []) => s.all(sql, params),
    run: async (sql, params = []) => s.run(sql, params),
    exec: async (sql) => s.exec(sql),
    post(sql) {
      try {
        s.exec(sql);
      } catch {
        // nothing to undo
      }
    },
    get inTransaction() {
      return s.inTransaction;
    },
    unbounded: (fn) => fn(),
    close: async () => s.close(),
  };
}

/** Options of {@link workerLink}. */
export interface WorkerLinkOptions extends SessionOptions {
  /** How long a statement may go unanswered before its caller hears {@link SQLITE_WAIT_TIMEOUT} (ms; a quarter second more, see below). */
  waitMs: number;
}

interface Waiting {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  /** performance.now() when sent; undefined: no deadline. */
  at: number | undefined;
}

// Compiled to dist/…/worker.js; run from the repository's TypeScript sources as worker.ts.
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url);

/**
 * The connection on a worker thread of its own, so a held write lock or a stalled disk blocks that
 * thread and not the event loop: `/healthz` keeps answering, and every statement has a bounded wait.
 * A statement unanswered after `waitMs` fails with {@link SQLITE_WAIT_TIMEOUT} (the API's 503
 * `store_unavailable`), and so does every statement after it, at once, until the thread answers again.
 * The worker keeps the process alive only while a statement is out.
 */
export function workerLink(o: WorkerLinkOptions): SqliteLink {
  const { waitMs, ...session } = o;
  // The worker needs none of the process's Node options (some are refused in a worker, or only make sense
  // for the entry script, like `--input-type`), except those that let it load TypeScript sources.
  const execArgv = process.execArgv.filter((a) => /^--experimental-(strip|transform)-types$/.test(a));
  const worker = new Worker(WORKER_URL, { workerData: session, execArgv });
  worker.unref();
  const waiting = new Map<number, Waiting>();
  let nextId = 1;
  let inTx = false;
  /** The thread has not answered within the wait: fail fast until it does. */
  let stalled = false;
  let dead: Error | undefined;
  let noDeadline = 0;
  let exited: Promise<void> | undefined;

  const settleAll = (err: Error) => {
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
    worker.unref();
  };
  worker.on('message', (m: LinkReply) => {
    stalled = false;
    if ('fatal' in m) {
      dead = new StoreError(
        `Cannot open the SQLite database at ${session.path}: ${m.fatal.message}. Check that the folder is writable, or set INTERLOCK_DATA_DIR.`,
        revive(m.fatal),
      );
      settleAll(dead);
      return;
    }
    inTx = m.tx;
    const w = waiting.get(m.id);
    if (!w) return;
    waiting.delete(m.id);
    if (waiting.size === 0) worker.unref();
    if ('error' in m) w.reject(revive(m.error));
    else w.resolve(m.value);
  });
  worker.on('error', (err: Error) => {
    dead = new StoreError(`The SQLite store's worker thread failed: ${err.message}. Restart the service.`, err);
    settleAll(dead);
  });
  worker.on('exit', () => {
    dead ??= new StoreError('The store is closed; create a new one.');
    settleAll(dead);
  });

  // One check every tenth of the wait (at most every 100 ms): the oldest statement out is the first in the map.
  // SQLite's own busy timeout (the same wait) answers a lock wait first, with SQLITE_BUSY: the link's
  // deadline, a quarter second later, is for a thread that cannot answer at all (a stalled disk).
  const deadlineMs = waitMs + 250;
  const overdue = (w: Waiting | undefined) => w?.at !== undefined && performance.now() - w.at > deadlineMs;
  const sweep = setInterval(
    () => {
      const first = waiting.values().next().value;
      if (!overdue(first)) return;
      // Judge after the answers already waiting are delivered: if this thread itself stood still (a
      // long synchronous task), the worker may have answered long ago.
      setImmediate(() => {
        if (!overdue(waiting.values().next().value)) return;
        stalled = true;
        settleAll(waitError(waitMs));
      });
    },
    Math.max(10, Math.min(100, waitMs / 10)),
  );
  sweep.unref();

  function send<T>(msg: { op: 'all' | 'run'; sql: string; params?: readonly unknown[] } | { op: 'exec'; sql: string }) {
    if (dead) return Promise.reject(dead);
    if (stalled && noDeadline === 0) return Promise.reject(waitError(waitMs));
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      if (waiting.size === 0) worker.ref();
      waiting.set(id, {
        resolve: resolve as (v: unknown) => void,
        reject,
        at: noDeadline > 0 ? undefined : performance.now(),
      });
      worker.postMessage({ id, ...msg } satisfies LinkRequest);
    });
  }

  return {
    all: (sql, params) => send<Row[]>({ op: 'all', sql, ...(params ? { params } : {}) }),
    run: (sql, params) => send<number>({ op: 'run', sql, ...(params ? { params } : {}) }),
    exec: (sql) => send<void>({ op: 'exec', sql }),
    post(sql) {
      if (!dead) worker.postMessage({ id: 0, op: 'exec', sql } satisfies LinkRequest);
    },
    get inTransaction() {
      return inTx;
    },
    async unbounded(fn) {
      noDeadline++;
      try {
        return await fn();
      } finally {
        noDeadline--;
      }
    },
    close() {
      exited ??= new Promise<void>((resolve) => {
        clearInterval(sweep);
        if (dead) return resolve();
        worker.ref();
        worker.once('exit', () => resolve());
        worker.postMessage({ op: 'close' } satisfies LinkRequest);
      });
      return exited;
    },
  };
}
