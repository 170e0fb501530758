import { Hono } from 'hono';
import { visibleRequest } from '../access.ts';
import { canSeeRole } from '../auth.ts';
import { CONVERSATION_EVIDENCE_KEYS, requestSummary } from '../views.ts';
import type { AppEnv, RouteDeps } from '../types.ts';

/**
 * What a reviewer weighs beside a request: the other requests on its subject (the same order, the same
 * customer), with their sums, and the facts about its call as of now. Both are reads of the request
 * a reviewer may see; related requests of roles they lack are counted, not shown.
 */
export function relatedRoutes(deps: RouteDeps): Hono<AppEnv> {
  const { interlock } = deps;
  const app = new Hono<AppEnv>();

  app.get('/approvals/:id/related', async (c) => {
    const p = c.var.principal;
    const req = await visibleRequest(deps, p, c.req.param('id'));
    const subjects = await interlock.relatedRequests(req.id);
    return c.json({
      subjects: subjects.map((s) => {
        const shown = s.requests.filter((r) => canSeeRole(p, r.role));
        return {
          key: s.key,
          value: s.value,
          open: s.open,
          executed: s.executed,
          requests: shown.map(requestSummary),
          hidden: s.requests.length - shown.length,
        };
      }),
    });
  });

  app.get('/approvals/:id/facts', async (c) => {
    const req = await visibleRequest(deps, c.var.principal, c.req.param('id'));
    const f = await interlock.currentFacts(req.id);
    return c.json({
      asOf: new Date(f.asOf).toISOString(),
      refreshed: f.refreshed,
      // Computed facts only: the customer's and the model's words recorded with them are shown apart, as untrusted.
      facts: computedOnly(f.facts),
      atOpen: computedOnly(f.atOpen),
      changed: f.changed,
      ...(f.error ? { error: f.error } : {}),
    });
  });

  return app;
}

const computedOnly = (evidence: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(evidence).filter(([k]) => !CONVERSATION_EVIDENCE_KEYS.includes(k)));
