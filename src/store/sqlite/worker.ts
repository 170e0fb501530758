// The SQLite store's worker thread: it owns the one connection to the database file and runs the
// statements the store's link (src/store/sqlite/link.ts) hands it, one at a time, in order. A held
// write lock or a stalled disk blocks this thread, not the service's event loop.
//
// It needs no event loop of its own: it waits on the shared control word, takes the request from its
// port synchronously, runs it, posts the answer and raises the answer flag (see link.ts for the protocol).
import { receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import { openSession, type SessionOptions, type SqliteSession } from './session.ts';
import {
  ANSWER,
  REQUEST,
  SPIN,
  type LinkReply,
  type LinkRequest,
  type LinkStatement,
  type WireError,
} from './link-protocol.ts';

const {
  session: options,
  control,
  port,
} = workerData as {
  session: SessionOptions;
  control: SharedArrayBuffer;
  port: MessagePort;
};
const flags = new Int32Array(control);

function wire(err: unknown): WireError {
  const e = err as { message?: unknown; code?: unknown; errcode?: unknown; errstr?: unknown };
  return {
    message: typeof e?.message === 'string' ? e.message : String(err),
    ...(typeof e?.code === 'string' ? { code: e.code } : {}),
    ...(typeof e?.errcode === 'number' ? { errcode: e.errcode } : {}),
    ...(typeof e?.errstr === 'string' ? { errstr: e.errstr } : {}),
  };
}

let session: SqliteSession | undefined;
let fatal: WireError | undefined;
try {
  session = openSession(options);
} catch (err) {
  fatal = wire(err);
}

function run(s: SqliteSession, m: Exclude<LinkStatement, { op: 'close' }>): unknown {
  return m.op === 'all' ? s.all(m.sql, m.params ?? []) : m.op === 'run' ? s.run(m.sql, m.params ?? []) : s.exec(m.sql);
}

function answer(m: Exclude<LinkRequest, { op: 'close' }>): LinkReply {
  if (!session) return { error: fatal!, fatal: true, tx: false };
  if (m.op === 'batch') {
    // The deferred writes in order; the first that fails (or changes another number of rows) ends the batch.
    for (const [at, w] of m.writes.entries()) {
      let changed: number;
      try {
        changed = session.run(w.sql, w.params);
      } catch (err) {
        return { error: wire(err), tx: session.inTransaction, at };
      }
      if (w.rows !== undefined && changed !== w.rows)
        return {
          error: { message: `changed ${changed} rows, not ${w.rows}` },
          tx: session.inTransaction,
          at,
          checked: true,
        };
    }
    if (!m.last) return { value: undefined, tx: session.inTransaction };
    m = m.last;
  }
  try {
    return { value: run(session, m), tx: session.inTransaction };
  } catch (err) {
    return { error: wire(err), tx: session.inTransaction };
  }
}

for (;;) {
  // A request usually follows the last answer within microseconds (the next statement of a transaction):
  // spin briefly before sleeping, since waking a sleeping thread costs more than the statement.
  for (let i = 0; i < SPIN && Atomics.load(flags, REQUEST) === 0; i++);
  Atomics.wait(flags, REQUEST, 0);
  Atomics.store(flags, REQUEST, 0);
  const received = receiveMessageOnPort(port);
  if (!received) continue;
  const m = received.message as LinkRequest;
  if (m.op === 'close') {
    session?.close();
    port.postMessage({ value: undefined, tx: false } satisfies LinkReply);
    Atomics.store(flags, ANSWER, 1);
    Atomics.notify(flags, ANSWER);
    port.close();
    break;
  }
  port.postMessage(answer(m));
  Atomics.store(flags, ANSWER, 1);
  Atomics.notify(flags, ANSWER);
}
