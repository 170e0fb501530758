import { Hono } from 'hono';
import type { ClockSkew, Store } from '../../store/types.ts';
import type { StorageState } from '../storage-state.ts';

/** `/readyz`'s word on the clock: the offset to the database's, and whether it is beyond the tolerance. */
function clockDetail(skew: ClockSkew) {
  return {
    offsetMs: skew.offsetMs,
    toleranceMs: skew.toleranceMs,
    skewed: skew.skewed,
    ...(skew.skewed
      ? {
          message: `This process's clock is ${Math.abs(skew.offsetMs ?? 0)} ms off the database's; Interlock uses the database's time, but fix the host's time sync.`,
        }
      : {}),
    ...(skew.error ? { lastError: skew.error } : {}),
  };
}

/**
 * Probes, without authentication: /healthz (the process answers), /readyz (the store answers in time,
 * and its storage took the last write: 503 `storage_full` after a write refused for a full disk).
 * On a store with one clock for several processes, /readyz's `clock` says how far this process's clock
 * is from the database's: a skew is corrected, so it stays 200; it is 503 `clock_unknown` only while
 * the offset has never been measured.
 */
export function healthRoutes(
  store: Pick<Store, 'name' | 'getAuditHeads'> & { clockSkew?: () => ClockSkew | null },
  opts: { readyTimeoutMs: number; storage?: StorageState },
): Hono {
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    // Reads still answer on a full disk; readiness is about taking writes too.
    if (opts.storage?.full)
      return c.json(
        {
          error: {
            code: 'storage_full',
            message: `The ${store.name} database's storage is full or failing: free space on the volume that holds it (or replace the disk); writes resume by themselves.`,
          },
        },
        503,
      );
    const skew = store.clockSkew?.() ?? null;
    if (skew && skew.offsetMs === null)
      return c.json(
        {
          error: {
            code: 'clock_unknown',
            message: `The offset between this process's clock and the ${store.name} database's could not be measured${skew.error ? ` (${skew.error})` : ''}; check the database and the service logs.`,
          },
        },
        503,
      );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${opts.readyTimeoutMs} ms`)), opts.readyTimeoutMs);
    });
    try {
      await Promise.race([store.getAuditHeads(), timeout]);
      return c.json({ status: 'ready', store: store.name, ...(skew ? { clock: clockDetail(skew) } : {}) });
    } catch {
      // Not ready is an answer, not a fault: no log, no internals.
      return c.json(
        {
          error: {
            code: 'not_ready',
            message: `The ${store.name} store does not answer; check the database and the service logs.`,
          },
        },
        503,
      );
    } finally {
      clearTimeout(timer);
    }
  });
  return app;
}
