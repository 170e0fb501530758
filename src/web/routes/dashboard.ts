import { Hono } from 'hono';
import { z } from 'zod';
import { readQuery } from '../../server/input.ts';
import type { AppEnv, RouteDeps } from '../../server/types.ts';
import { dashboardData, DASHBOARD_WINDOWS, type DashboardWindow } from '../dashboard-data.ts';

/** Query of GET /dashboard. */
export const dashboardQuery = z.strictObject({
  window: z.enum(Object.keys(DASHBOARD_WINDOWS) as [DashboardWindow, ...DashboardWindow[]]).optional(),
});

/**
 * GET /dashboard?window=24h: per-tool interrupts, approval and correction
 * rates, median time to decision, resume success and queue depth over time,
 * for the metrics page: operators see every tool, other reviewers the requests
 * of their roles (as in the queue).
 */
export function dashboardRoutes(deps: RouteDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/dashboard', async (c) => {
    const q = readQuery(c, dashboardQuery);
    const p = c.var.principal;
    // Reviewers see the figures of their roles' requests; operators see every tool.
    return c.json(await dashboardData(deps.interlock, q.window ?? '24h', p.operator ? undefined : p.roles));
  });
  return app;
}
