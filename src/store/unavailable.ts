/** Network errors of a driver that could not reach its database. */
const NETWORK = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
/**
 * PostgreSQL SQLSTATEs of a server going away or refusing connections (class 08 is matched by prefix),
 * and of deadlines it enforced for us: statement_timeout (57014) and idle_in_transaction_session_timeout (25P03).
 */
const PG_UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '53300', '53400', '57014', '25P03']);
/** PostgreSQL SQLSTATEs of storage that cannot take a write: disk_full, io_error. */
const PG_STORAGE = new Set(['53100', '58030']);
/** node:sqlite primary result codes (the low byte of `errcode`): SQLITE_IOERR and SQLITE_FULL. */
const SQLITE_STORAGE = new Set([10, 13]);

/** `err` and the errors it wraps, outermost first (a few levels at most). */
function* chain(err: unknown): Generator<object> {
  for (
    let e: unknown = err, depth = 0;
    e && typeof e === 'object' && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  )
    yield e;
}

/**
 * True when `err` (or an error it wraps) says the database's storage cannot take a write: the disk
 * or volume is full (SQLITE_FULL, PostgreSQL 53100) or failing (SQLITE_IOERR and its extended codes,
 * PostgreSQL 58030). Nothing was wrong with the request and nothing was written; writes succeed again
 * once space is freed. The HTTP API answers these with 503 `storage_full`.
 */
export function isStorageFull(err: unknown): boolean {
  for (const e of chain(err)) {
    const { code, errcode } = e as { code?: unknown; errcode?: unknown };
    if (typeof code === 'string' && PG_STORAGE.has(code)) return true;
    if (typeof errcode === 'number' && SQLITE_STORAGE.has(errcode & 0xff)) return true;
  }
  return false;
}
/** node:sqlite `errcode`s: SQLITE_BUSY and SQLITE_LOCKED, another process holding the database past the busy timeout. */
const SQLITE_BUSY = new Set([5, 6]);

/**
 * True when `err` (or an error it wraps) says the database could not be
 * reached, is restarting, or is busy: nothing was wrong with the request, and
 * the same request can succeed in a moment. The HTTP API answers these with
 * 503 and `Retry-After` instead of a 500.
 */
export function isStoreUnavailable(err: unknown): boolean {
  for (const e of chain(err)) {
    const { code, errcode, message } = e as { code?: unknown; errcode?: unknown; message?: unknown };
    if (typeof code === 'string' && (NETWORK.has(code) || PG_UNAVAILABLE.has(code) || /^08[0-9A-Z]{3}$/.test(code)))
      return true;
    if (typeof errcode === 'number' && SQLITE_BUSY.has(errcode)) return true;
    // The SQLite store's worker thread did not answer within its wait (src/store/sqlite/link.ts).
    if (code === 'SQLITE_WAIT_TIMEOUT') return true;
    // node-postgres reports a connection the server closed, a pool or client that cannot connect in time,
    // and a statement past its client-side deadline (query_timeout) by message only.
    if (
      typeof message === 'string' &&
      /^(Connection terminated|timeout exceeded when trying to connect|timeout expired|Query read timeout|Client has encountered a connection error)/i.test(
        message,
      )
    )
      return true;
  }
  return false;
}
