import { Hono } from 'hono';
import { hashEvent, redactMessages, type AuditEvent } from '../../core/index.ts';
import { visibleThread } from '../../server/access.ts';
import { canSeeRole } from '../../server/auth.ts';
import type { AppEnv, RouteDeps } from '../../server/types.ts';
import { requestSummary, threadView } from '../../server/views.ts';

/** Events a timeline shows at most (the audit API pages through more). */
const MAX_EVENTS = 2000;

/**
 * The chain status a timeline shows. Operators get the whole chain walked
 * (as GET /audit/verify); other reviewers get this thread's events checked
 * against their own hashes, which shows an edited event but not a removed one.
 */
export type TimelineChain =
  | { scope: 'full'; ok: true; events: number; headSeq: number }
  | { scope: 'full'; ok: false; events: number; brokenAt: { seq: number; id: string | null; problem: string } }
  | { scope: 'thread'; ok: boolean; events: number; brokenAt: { seq: number; id: string; problem: string } | null };

function threadChain(events: readonly AuditEvent[]): TimelineChain {
  const bad = events.find((e) => hashEvent(e) !== e.hash);
  return {
    scope: 'thread',
    ok: !bad,
    events: events.length,
    brokenAt: bad ? { seq: bad.seq, id: bad.id, problem: 'content changed after it was written' } : null,
  };
}

/**
 * GET /threads/:id/timeline: everything the thread page shows in one answer —
 * the thread, its conversation, its approval requests (with the tool call each
 * paused), its audit events with reviewer names, and the audit chain status.
 */
export function timelineRoutes(deps: RouteDeps): Hono<AppEnv> {
  const { interlock } = deps;
  const app = new Hono<AppEnv>();
  app.get('/threads/:id/timeline', async (c) => {
    const p = c.var.principal;
    const thread = await visibleThread(deps, p, c.req.param('id'));
    const [messages, requests, events, reviewers] = await Promise.all([
      interlock.threads.listMessages(thread.id),
      interlock.listRequests({ threadId: thread.id, order: 'newest', limit: 500 }),
      interlock.audit.listAudit({ threadId: thread.id, limit: MAX_EVENTS }),
      interlock.reviewers.listReviewers(),
    ]);
    // The threads this one delegated to (sub-agents, graph nodes), with their requests, to show nested.
    const children = (
      await Promise.all(
        events
          .filter((e) => e.type === 'delegated' && typeof e.payload.childThreadId === 'string')
          .map(async (e) => {
            const id = e.payload.childThreadId as string;
            const [child, reqs] = await Promise.all([
              interlock.threads.getThread(id),
              interlock.listRequests({ threadId: id, order: 'newest', limit: 100 }),
            ]);
            if (!child) return null;
            return {
              threadId: id,
              agent: child.agent,
              status: child.status,
              toolCallId: typeof e.payload.toolCallId === 'string' ? e.payload.toolCallId : null,
              node: typeof e.payload.node === 'string' ? e.payload.node : null,
              requests: reqs.items
                .filter((r) => canSeeRole(p, r.role))
                .reverse()
                .map(requestSummary),
            };
          }),
      )
    ).filter((x) => x !== null);
    let chain: TimelineChain;
    if (p.operator) {
      const v = await interlock.verifyAudit();
      chain = v.ok
        ? { scope: 'full', ok: true, events: v.events, headSeq: v.headSeq }
        : { scope: 'full', ok: false, events: v.events, brokenAt: v.brokenAt };
    } else {
      chain = threadChain(events);
    }
    // Names for `reviewer:<id>` actors; other actors (agent:…, system:…) speak for themselves.
    const actors = Object.fromEntries(
      reviewers
        .filter((r) => events.some((e) => e.actor === `reviewer:${r.id}`))
        .map((r) => [`reviewer:${r.id}`, r.name]),
    );
    return c.json({
      thread: threadView(thread),
      // Masked as on the review card; operators read the stored text through GET /api/v1/threads/:id?raw=1 (audited).
      messages: redactMessages(messages as Parameters<typeof redactMessages>[0]),
      // Oldest first, as the conversation reads; requests of roles the caller lacks stay hidden, as in the queue.
      requests: requests.items
        .filter((r) => canSeeRole(p, r.role))
        .reverse()
        .map((r) => ({ ...requestSummary(r), toolCallId: r.toolCallId })),
      children,
      audit: events.map((e) => ({
        seq: e.seq,
        id: e.id,
        type: e.type,
        actor: e.actor,
        at: new Date(e.at).toISOString(),
        requestId: e.requestId,
        payload: e.payload,
      })),
      auditTruncated: events.length === MAX_EVENTS,
      actors,
      chain,
    });
  });
  return app;
}
