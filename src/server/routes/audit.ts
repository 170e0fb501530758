import { Hono } from 'hono';
import { visibleThread } from '../access.ts';
import { requireOperator } from '../auth.ts';
import { readQuery } from '../input.ts';
import { auditQuery } from '../schemas.ts';
import type { AppEnv, RouteDeps } from '../types.ts';

/** The audit log: one thread's events, and verification of the whole chain (operators). */
export function auditRoutes(deps: RouteDeps): Hono<AppEnv> {
  const { interlock } = deps;
  const app = new Hono<AppEnv>();

  app.get('/threads/:id/audit', async (c) => {
    const thread = await visibleThread(deps, c.var.principal, c.req.param('id'));
    const q = readQuery(c, auditQuery);
    const limit = q.limit ?? 1000;
    const events = await interlock.audit.listAudit({
      threadId: thread.id,
      limit,
      ...(q.afterSeq !== undefined && { afterSeq: q.afterSeq }),
    });
    const last = events[events.length - 1];
    return c.json({
      threadId: thread.id,
      events: events.map((e) => ({ ...e, at: new Date(e.at).toISOString() })),
      // Pass as ?afterSeq= for the next page; null on the last page.
      nextAfterSeq: events.length === limit && last ? last.seq : null,
    });
  });

  app.get('/audit/verify', async (c) => {
    requireOperator(c.var.principal, 'verify the audit log');
    const v = await interlock.verifyAudit();
    return c.json(
      v.ok
        ? { ok: true, events: v.events, head: { seq: v.headSeq, hash: v.headHash }, heads: v.heads ?? [] }
        : { ok: false, events: v.events, brokenAt: v.brokenAt },
    );
  });

  return app;
}
