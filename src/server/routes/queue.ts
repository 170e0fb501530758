import { Hono } from 'hono';
import { queueItems, queueQuery, readQueueQuery } from '../queue-query.ts';
import { countQuery, listQuery } from '../schemas.ts';
import type { AppEnv, RouteDeps } from '../types.ts';

/**
 * The queue listing and its count. Non-operators see only requests for their roles; each item
 * carries the decisions the caller may take on it. Mount before `/approvals/:id`.
 */
export function queueRoutes(deps: RouteDeps): Hono<AppEnv> {
  const { interlock } = deps;
  const app = new Hono<AppEnv>();

  app.get('/approvals', async (c) => {
    const p = c.var.principal;
    const page = await interlock.listRequests(queueQuery(p, readQueueQuery(c, listQuery)));
    return c.json({ ...(await queueItems(deps, p, page.items)), nextCursor: page.nextCursor });
  });

  // The queue's count under the same filters: one COUNT, so a badge never reads the requests themselves.
  app.get('/approvals/count', async (c) => {
    const p = c.var.principal;
    return c.json({ count: await interlock.countRequests(queueQuery(p, readQueueQuery(c, countQuery))) });
  });

  return app;
}
