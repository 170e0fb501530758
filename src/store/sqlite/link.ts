import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { StoreError } from '../../core/index.ts';
import type { Row } from '../sql/executor.ts';
import { openSession, type SessionOptions } from './session.ts';
import {
  ANSWER,
  REQUEST,
  SPIN,
  type DeferredWrite,
  type LinkReply,
  type LinkRequest,
  type WireError,
} from './link-protocol.ts';

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
  /**
   * Defer a write inside a transaction (the worker thread's link only): it goes to the thread with the
   * next statement someone waits for, or with {@link flush}, in one message. Its failure is that
   * statement's failure; with `check`, changing another number of rows fails as `check.fail()`.
   */
  defer?(sql: string, params: readonly unknown[], check?: { rows: number; fail: () => Error }): void;
  /** Send the deferred writes now; rejects with the first one's failure. */
  flush?(): Promise<void>;
  /** Drop the deferred writes: their transaction is being undone. */
  discard?(): void;
  /** Messages sent to the worker thread so far (the worker thread's link only). */
  readonly hops?: number;
  /** A transaction is open, as of the last answer. */
  readonly inTransaction: boolean;
  /** Run `fn` with no deadline on its statements (migrations, which may rebuild an index for minutes). */
  unbounded<T>(fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The error code of a statement the database did not answer within the store's wait. */
export const SQLITE_WAIT_TIMEOUT = 'SQLITE_WAIT_TIMEOUT';

/** What a catch caught, as the Error a promise is rejected with. */
const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));

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

/**
 * How long the event loop's thread waits for an answer before it stops waiting and lets the event loop
 * run (ms). Most statements answer in microseconds, within it; a commit's sync may not.
 */
const SYNC_MS = 1;

// Compiled to dist/…/worker.js; run from the repository's TypeScript sources as worker.ts.
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url);

/**
 * The connection on a worker thread of its own, so a held write lock or a stalled disk blocks that
 * thread and not the event loop: `/healthz` keeps answering, and every statement has a bounded wait.
 *
 * A statement is handed over through a message port and two shared flags, and the event loop's thread
 * first waits for the answer itself, for at most {@link SYNC_MS}: a statement that answers in microseconds
 * (most do) costs little more than on the event loop, with no turn of the event loop in between. Past
 * that, the wait goes on asynchronously (`Atomics.waitAsync`) and the event loop runs. A statement
 * unanswered after `waitMs` fails with {@link SQLITE_WAIT_TIMEOUT} (the API's 503 `store_unavailable`),
 * and so does every statement after it, at once, until the thread answers again; what was posted to
 * run after it (the rollback of its transaction) still runs then.
 */
export function workerLink(o: WorkerLinkOptions): SqliteLink {
  const { waitMs, ...session } = o;
  // SQLite's own busy timeout (the same wait) answers a lock wait first, with SQLITE_BUSY: the link's
  // deadline, a quarter second later, is for a thread that cannot answer at all (a stalled disk).
  const deadlineMs = waitMs + 250;
  const control = new SharedArrayBuffer(8);
  const flags = new Int32Array(control);
  const { port1: port, port2 } = new MessageChannel();
  // The worker needs none of the process's Node options (some are refused in a worker, or only make sense
  // for the entry script, like `--input-type`), except those that let it load TypeScript sources.
  const execArgv = process.execArgv.filter((a) => /^--experimental-(strip|transform)-types$/.test(a));
  const worker = new Worker(WORKER_URL, {
    workerData: { session, control, port: port2 },
    transferList: [port2],
    execArgv,
  });
  worker.unref();
  port.unref();

  let inTx = false;
  /** An answer still outstanding past the synchronous wait; settles when it arrives. */
  let busy: Promise<void> | undefined;
  /** The caller of that statement, while it still waits. */
  let outstanding: ((err: Error) => void) | undefined;
  /** The thread did not answer within the deadline: fail fast until it does. */
  let stalled = false;
  let dead: Error | undefined;
  let noDeadline = 0;
  let exited: Promise<void> | undefined;

  const die = (err: Error) => {
    dead ??= err;
    outstanding?.(dead);
    outstanding = undefined;
  };
  worker.on('error', (err: Error) =>
    die(new StoreError(`The SQLite store's worker thread failed: ${err.message}. Restart the service.`, err)),
  );
  worker.on('exit', () => die(new StoreError('The store is closed; create a new one.')));

  function take(): LinkReply {
    const received = receiveMessageOnPort(port);
    if (!received) throw new StoreError("The SQLite store's worker thread raised its answer flag with no answer.");
    return received.message as LinkReply;
  }
  /** Writes deferred until the next statement, with the errors their checks raise. */
  let deferred: DeferredWrite[] = [];
  let checks: Array<(() => Error) | undefined> = [];
  /** `req` with the deferred writes in front, in one message; the checks that go with them. */
  function withDeferred(req: LinkRequest): { request: LinkRequest; fails: Array<(() => Error) | undefined> } {
    if (deferred.length === 0 || req.op === 'close') return { request: req, fails: [] };
    const writes = req.op === 'batch' ? [...deferred, ...req.writes] : deferred;
    const last = req.op === 'batch' ? req.last : req;
    const request: LinkRequest = { op: 'batch', writes, ...(last ? { last } : {}) };
    const fails = checks;
    deferred = [];
    checks = [];
    return { request, fails };
  }
  /**
   * A deferred write failed, in a batch carried by a statement nobody may be waiting for (a read asked
   * for and left unawaited): the writes after it did not run, so the transaction must not commit. Every
   * statement after it, the COMMIT and {@link flush} included, fails with its error until the
   * transaction is undone (`post`, `discard`) — as a failed statement fails a PostgreSQL transaction.
   */
  let broken: Error | undefined;
  function settle<T>(reply: LinkReply, fails: Array<(() => Error) | undefined> = []): T {
    inTx = reply.tx;
    if ('error' in reply) {
      const fail = reply.checked && reply.at !== undefined ? fails[reply.at] : undefined;
      if (reply.at !== undefined && !reply.fatal) {
        broken = fail ? fail() : revive(reply.error);
        throw broken;
      }
      if (fail) throw fail();
      if (reply.fatal)
        throw (dead ??= new StoreError(
          `Cannot open the SQLite database at ${session.path}: ${reply.error.message}. Check that the folder is writable, or set INTERLOCK_DATA_DIR.`,
          revive(reply.error),
        ));
      throw revive(reply.error);
    }
    return reply.value as T;
  }

  let hops = 0;
  function start(req: LinkRequest): void {
    hops++;
    Atomics.store(flags, ANSWER, 0);
    port.postMessage(req);
    Atomics.store(flags, REQUEST, 1);
    Atomics.notify(flags, REQUEST);
  }
  /** Wait on this thread for up to SYNC_MS; true if the answer is there. */
  function syncWait(): boolean {
    for (let i = 0; i < SPIN && Atomics.load(flags, ANSWER) === 0; i++);
    // A wake-up may be the late notify of the previous answer: only the flag itself says.
    const until = performance.now() + SYNC_MS;
    while (Atomics.load(flags, ANSWER) === 0) {
      const left = until - performance.now();
      if (left <= 0) return false;
      Atomics.wait(flags, ANSWER, 0, left);
    }
    return true;
  }
  /** Resolves once the answer flag is up (asynchronously: the event loop runs meanwhile). */
  async function answered(): Promise<void> {
    while (Atomics.load(flags, ANSWER) === 0) {
      const w = Atomics.waitAsync(flags, ANSWER, 0);
      if (w.async) await w.value;
    }
  }
  function asyncWait<T>(startedAt: number, fails: Array<(() => Error) | undefined>): Promise<T> {
    let free!: () => void;
    busy = new Promise<void>((resolve) => (free = resolve));
    return new Promise<T>((resolve, reject) => {
      let waiting = true;
      outstanding = (err) => {
        waiting = false;
        reject(err);
      };
      // Also what keeps the process alive while the answer is out (a pending waitAsync does not).
      const timer =
        noDeadline > 0
          ? setInterval(() => undefined, 60_000)
          : setTimeout(
              () => {
                // An answer already there (this thread stood still past the deadline) is taken below.
                if (!waiting || Atomics.load(flags, ANSWER) === 1) return;
                waiting = false;
                outstanding = undefined;
                stalled = true;
                reject(waitError(waitMs));
              },
              Math.max(0, startedAt + deadlineMs - performance.now()),
            );
      const arrived = () => {
        clearTimeout(timer);
        let reply: LinkReply;
        try {
          reply = take();
        } catch (err) {
          if (waiting) reject(asError(err));
          return;
        }
        busy = undefined;
        stalled = false;
        free();
        if (!waiting) {
          inTx = reply.tx; // its caller gave up; the state it left still counts
          return;
        }
        waiting = false;
        outstanding = undefined;
        try {
          resolve(settle<T>(reply, fails));
        } catch (err) {
          reject(asError(err));
        }
      };
      void answered().then(arrived);
    });
  }

  /** Run one request; `queued`: run it after a stuck statement even while stalled (a rollback). */
  function send<T>(req: LinkRequest, queued = false): Promise<T> {
    if (broken && !queued && req.op !== 'close') return Promise.reject(broken);
    // The writes deferred so far go with this statement, taken now: one deferred after it is asked for
    // (while it waits behind a slow one) must not run before it.
    const { request, fails } = withDeferred(req);
    return dispatch<T>(request, fails, queued);
  }
  function dispatch<T>(request: LinkRequest, fails: Array<(() => Error) | undefined>, queued: boolean): Promise<T> {
    if (dead) return Promise.reject(dead);
    if (busy) {
      if (stalled && noDeadline === 0 && !queued) return Promise.reject(waitError(waitMs));
      return busy.then(() => dispatch<T>(request, fails, queued));
    }
    const startedAt = performance.now();
    start(request);
    if (!syncWait()) return asyncWait<T>(startedAt, fails);
    try {
      return Promise.resolve(settle<T>(take(), fails));
    } catch (err) {
      return Promise.reject(asError(err));
    }
  }

  return {
    all: (sql, params) => send<Row[]>({ op: 'all', sql, ...(params ? { params } : {}) }),
    run: (sql, params) => send<number>({ op: 'run', sql, ...(params ? { params } : {}) }),
    exec: (sql) => send<void>({ op: 'exec', sql }),
    post(sql) {
      // What was deferred belongs to the transaction this undoes.
      deferred = [];
      checks = [];
      broken = undefined;
      send<void>({ op: 'exec', sql }, true).catch(() => undefined);
    },
    defer(sql, params, check) {
      deferred.push({ sql, params, ...(check ? { rows: check.rows } : {}) });
      checks.push(check?.fail);
    },
    flush: () =>
      broken
        ? Promise.reject(broken)
        : deferred.length > 0
          ? send<void>({ op: 'batch', writes: [] })
          : Promise.resolve(),
    discard() {
      deferred = [];
      checks = [];
      broken = undefined;
    },
    get inTransaction() {
      return inTx;
    },
    get hops() {
      return hops;
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
      exited ??= (async () => {
        if (dead) return;
        const gone = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
        worker.ref();
        await send<void>({ op: 'close' }, true).catch(() => undefined);
        await gone;
      })();
      return exited;
    },
  };
}
