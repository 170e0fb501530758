import { Hono } from 'hono';
import { z } from 'zod';
import type { AttentionViewer, FailedApproval } from '../../engine/index.ts';
import type { Principal } from '../auth.ts';
import { readQuery } from '../input.ts';
import type { AppEnv, RouteDeps } from '../types.ts';
import { requestSummary } from '../views.ts';

/** Query of GET /api/v1/attention. */
export const attentionQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).optional(),
  cursor: z.string().min(1).max(1000).optional(),
});

/** Whose failed approvals `p` sees: an operator everyone's, a reviewer those they decided on. */
function viewerOf(p: Principal): AttentionViewer {
  return p.operator ? { all: true } : { reviewer: p.id };
}

/** A failed approval as the API shows it (ISO times). */
export function failedApprovalView(f: FailedApproval) {
  return {
    request: requestSummary(f.request),
    error: f.error,
    failedAt: new Date(f.failedAt).toISOString(),
    approvers: f.approvers,
  };
}

/**
 * "Needs attention": approved actions that failed when they ran, so the people who approved them can
 * follow up (retry by hand, tell the customer). A reviewer sees those they approved or otherwise
 * decided on; an operator sees all. The list and its count are the engine's reads (src/engine/attention.ts).
 */
export function attentionRoutes(deps: RouteDeps): Hono<AppEnv> {
  const { interlock } = deps;
  const app = new Hono<AppEnv>();

  app.get('/attention', async (c) => {
    const viewer = viewerOf(c.var.principal);
    const q = readQuery(c, attentionQuery);
    const [page, count] = await Promise.all([
      interlock.attention.list(viewer, {
        ...(q.limit !== undefined && { limit: q.limit }),
        ...(q.cursor && { cursor: q.cursor }),
      }),
      interlock.attention.count(viewer),
    ]);
    return c.json({ items: page.items.map(failedApprovalView), nextCursor: page.nextCursor, count });
  });

  // The top bar's "Needs attention (N)" on every page: one COUNT, no rows read.
  app.get('/attention/count', async (c) =>
    c.json({ count: await interlock.attention.count(viewerOf(c.var.principal)) }),
  );

  return app;
}
