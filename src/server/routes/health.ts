import { Hono } from 'hono';
import type { Store } from '../../store/types.ts';
import type { StorageState } from '../storage-state.ts';

/**
 * Probes, without authentication: /healthz (the process answers), /readyz (the store answers in time,
 * and its storage took the last write: 503 `storage_full` after a write refused for a full disk).
 */
export function healthRoutes(
  store: Pick<Store, 'name' | 'getAuditHeads'>,
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
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${opts.readyTimeoutMs} ms`)), opts.readyTimeoutMs);
    });
    try {
      await Promise.race([store.getAuditHeads(), timeout]);
      return c.json({ status: 'ready', store: store.name });
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
