import { Hono } from 'hono';
import type { Decision } from '../../core/index.ts';
import { visibleRequest } from '../access.ts';
import { requireOperator } from '../auth.ts';
import { RateLimitedError } from '../errors.ts';
import { reviewFacts } from '../review-facts.ts';
import { readJson, readQuery } from '../input.ts';
import type { RateLimiter } from '../rate-limit.ts';
import { decisionBody, plantedQuery, type DecisionBody } from '../schemas.ts';
import type { AppEnv, RouteDeps } from '../types.ts';
import { queueRoutes } from './queue.ts';
import { plantedCheckView, requestSummary, reviewerNames, reviewPacket } from '../views.ts';

/** The engine's decision from a validated body, leaving out what was not sent. */
function decisionOf(body: DecisionBody): Decision {
  return {
    type: body.type,
    expectedVersion: body.expectedVersion,
    actionHash: body.actionHash,
    ...(body.args !== undefined && { args: body.args }),
    ...(body.message !== undefined && { message: body.message }),
    ...(body.trust !== undefined && { trust: body.trust }),
  };
}

/**
 * The approval queue: list, review packet, story, decision.
 * Non-operators see only requests for their roles.
 */
export function approvalRoutes(deps: RouteDeps, limiter: RateLimiter | undefined): Hono<AppEnv> {
  const { interlock } = deps;
  const app = new Hono<AppEnv>();

  // The listing and its count (routes/queue.ts), ahead of /approvals/:id so "count" is no id.
  app.route('/', queueRoutes(deps));

  // Operators only: a reviewer who could list planted checks could tell them apart in the queue.
  app.get('/planted', async (c) => {
    requireOperator(c.var.principal, 'list planted checks');
    const q = readQuery(c, plantedQuery);
    const page = await interlock.listRequests({
      planted: true,
      order: 'newest',
      ...(q.limit !== undefined && { limit: q.limit }),
      ...(q.cursor && { cursor: q.cursor }),
    });
    return c.json({
      items: page.items.map((r) => ({ ...requestSummary(r), ...plantedCheckView(r) })),
      nextCursor: page.nextCursor,
    });
  });

  app.get('/approvals/:id', async (c) => {
    const p = c.var.principal;
    const req = await visibleRequest(deps, p, c.req.param('id'));
    const [voters, reviewers, facts] = await Promise.all([
      interlock.requests.listVoters(req.id),
      interlock.reviewers.listReviewers(),
      reviewFacts(interlock, req),
      // The first time this reviewer opened the card: their pace from opening to approving (operators' dashboard).
      req.status === 'pending' ? interlock.cardOpened(req.id, p.id) : undefined,
    ]);
    const names = reviewerNames(req, voters, reviewers);
    return c.json(
      reviewPacket(req, {
        viewer: p,
        voters,
        now: interlock.now(),
        argsSchema: await deps.argsSchema(req.tool),
        names,
        facts,
      }),
    );
  });

  app.get('/approvals/:id/story', async (c) => {
    await visibleRequest(deps, c.var.principal, c.req.param('id'));
    const story = await interlock.explain(c.req.param('id'));
    // A planted check's own `planted` event is for operators: to a reviewer, its story reads like any.
    const events = c.var.principal.operator ? story.events : story.events.filter((e) => e.type !== 'planted');
    // The request as everywhere else in the API (ISO times, no raw evidence or policy context).
    return c.json({ ...story, events, request: requestSummary(story.request) });
  });

  app.post('/approvals/:id/decision', async (c) => {
    const p = c.var.principal;
    if (limiter) {
      const waitMs = limiter.take(p.id);
      if (waitMs > 0) throw new RateLimitedError(Math.ceil(waitMs / 1000));
    }
    const id = c.req.param('id');
    const body = await readJson(c, decisionBody, 'decision');
    // Existence, role, proposer, quorum, version, hash and expiry are all checked by the engine's guarded write.
    const result = await interlock.decide(id, decisionOf(body), { id: p.id, name: p.name, roles: p.roles });
    return c.json({
      request: requestSummary(result.request),
      outcome: result.outcome,
      ...(result.newRequest && { newRequestId: result.newRequest.id }),
      ...(result.plantedCheck && { plantedCheck: result.plantedCheck }),
    });
  });

  return app;
}
