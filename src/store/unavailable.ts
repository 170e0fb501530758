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
/** PostgreSQL SQLSTATEs of a server going away or refusing connections (class 08 is matched by prefix). */
const PG_UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '53300', '53400']);
/** node:sqlite `errcode`s: SQLITE_BUSY and SQLITE_LOCKED, another process holding the database past the busy timeout. */
const SQLITE_BUSY = new Set([5, 6]);

/**
 * True when `err` (or an error it wraps) says the database could not be
 * reached, is restarting, or is busy: nothing was wrong with the request, and
 * the same request can succeed in a moment. The HTTP API answers these with
 * 503 and `Retry-After` instead of a 500.
 */
export function isStoreUnavailable(err: unknown): boolean {
  for (
    let e: unknown = err, depth = 0;
    e && typeof e === 'object' && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const { code, errcode, message } = e as { code?: unknown; errcode?: unknown; message?: unknown };
    if (typeof code === 'string' && (NETWORK.has(code) || PG_UNAVAILABLE.has(code) || /^08[0-9A-Z]{3}$/.test(code)))
      return true;
    if (typeof errcode === 'number' && SQLITE_BUSY.has(errcode)) return true;
    // node-postgres reports a connection the server closed, or a pool that cannot connect in time, by message only.
    if (
      typeof message === 'string' &&
      /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/i.test(
        message,
      )
    )
      return true;
  }
  return false;
}
