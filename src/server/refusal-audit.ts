import type { MiddlewareHandler } from 'hono';
import { auditEvent, type Interlock } from '../engine/index.ts';
import { UnauthorizedError } from './errors.ts';
import { createRateLimiter, type RateLimitOptions } from './rate-limit.ts';
import type { AppEnv } from './types.ts';

/**
 * Audit decisions refused before they reach the engine because the caller did
 * not authenticate (no token, an unknown one, a revoked one), as `refused`
 * events like the engine's own refusals (wrong role, self-approval, a second
 * vote): the audit of a request shows every attempt to decide it. Only attempts
 * on an existing request are recorded, and at most `limit.capacity` per caller
 * (the revoked reviewer, or "anonymous") per window, so unauthenticated
 * traffic cannot flood the log. Mount it on the decision route, before auth.
 */
export function auditAuthRefusals(
  interlock: Interlock,
  limit: Omit<RateLimitOptions, 'now'> = { capacity: 20, windowMs: 60_000 },
): MiddlewareHandler<AppEnv> {
  const limiter = createRateLimiter(limit);
  return async (c, next) => {
    // Read before next(): afterwards the route params are those of the last handler that ran.
    const requestId = c.req.param('id');
    await next();
    const err = c.error;
    if (c.req.method !== 'POST' || !(err instanceof UnauthorizedError)) return;
    const actor = err.reviewerId ? `reviewer:${err.reviewerId}` : 'anonymous';
    if (!requestId || limiter.take(actor) > 0) return;
    try {
      const req = await interlock.getRequest(requestId);
      if (!req) return;
      await interlock.audit.record([
        auditEvent('refused', actor, { decision: null, code: err.code }, { threadId: req.threadId, requestId }),
      ]);
    } catch {
      // The 401 stands: a store fault while recording it is not the caller's answer.
    }
  };
}
