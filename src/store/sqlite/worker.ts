// The SQLite store's worker thread: it owns the one connection to the database file and runs the
// statements the store's link (src/store/sqlite/link.ts) sends, one at a time, in the order sent. A held
// write lock or a stalled disk blocks this thread, not the service's event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { openSession, type SessionOptions, type SqliteSession } from './session.ts';
import type { LinkReply, LinkRequest, WireError } from './link.ts';

const port = parentPort!;

function wire(err: unknown): WireError {
  const e = err as { message?: unknown; code?: unknown; errcode?: unknown; errstr?: unknown };
  return {
    message: typeof e?.message === 'string' ? e.message : String(err),
    ...(typeof e?.code === 'string' ? { code: e.code } : {}),
    ...(typeof e?.errcode === 'number' ? { errcode: e.errcode } : {}),
    ...(typeof e?.errstr === 'string' ? { errstr: e.errstr } : {}),
  };
}

let session: SqliteSession;
try {
  session = openSession(workerData as SessionOptions);
} catch (err) {
  port.postMessage({ id: 0, fatal: wire(err) } satisfies LinkReply);
  process.exit(1);
}

port.on('message', (m: LinkRequest) => {
  if (m.op === 'close') {
    session.close();
    port.close();
    return;
  }
  let reply: LinkReply;
  try {
    const value =
      m.op === 'all'
        ? session.all(m.sql, m.params ?? [])
        : m.op === 'run'
          ? session.run(m.sql, m.params ?? [])
          : session.exec(m.sql);
    reply = { id: m.id, value, tx: session.inTransaction };
  } catch (err) {
    reply = { id: m.id, error: wire(err), tx: session.inTransaction };
  }
  // Posted statements (id 0) are answered too: any answer tells the link this thread is moving again.
  port.postMessage(reply);
});
