import { Hono } from 'hono';
import { z } from 'zod';
import { eligibilityRefusal, type ApprovalRequest } from '../../core/index.ts';
import type { Interlock } from '../../engine/index.ts';
import type { Principal } from '../../server/auth.ts';
import { readQuery } from '../../server/input.ts';
import type { AppEnv, RouteDeps } from '../../server/types.ts';
import { requestSummary } from '../../server/views.ts';

/** Query of GET /review/next. */
export const nextQuery = z.strictObject({
  skip: z.string().min(1).max(200).optional().describe('A request to pass over (the card the reviewer is on).'),
});

/** Pending requests looked at, at most, for the next one the caller can decide. */
const SCAN_LIMIT = 2000;
const PAGE = 200;

/** Why a pending request was passed over: the API's refusal codes. */
export type SkipReason = 'self_approval' | 'duplicate_reviewer' | 'request_expired';

/**
 * Why `p` cannot decide `r` now, or undefined when they can: expired by the clock (the sweeper may
 * not have run yet), or refused by the core's one eligibility rule for an approval — their own
 * proposal (an edit makes its author the proposer), or their approval already counted on a quorum.
 * Roles are left to the query: only requests of `p`'s roles are read.
 */
async function skipReason(
  interlock: Interlock,
  r: ApprovalRequest,
  p: Principal,
  now: number,
): Promise<SkipReason | undefined> {
  if (now >= r.expiresAt) return 'request_expired';
  // Voters are read only where someone approved already: most requests have none.
  const voters = r.approvalsReceived > 0 ? await interlock.requests.listVoters(r.id) : [];
  const refusal = eligibilityRefusal(r, p, 'approve', voters)?.code;
  return refusal === 'self_approval' || refusal === 'duplicate_reviewer' ? refusal : undefined;
}

/**
 * GET /review/next: the pending request the caller should decide next — soonest expiry first, as
 * the queue lists them — passing over the one they are on and those they cannot decide (roles they
 * lack, their own proposals, requests their approval already counts on, expired ones), with how
 * many of each were passed over. `next` is null when there is none.
 */
export function nextRequestRoutes(deps: RouteDeps): Hono<AppEnv> {
  const { interlock } = deps;
  const app = new Hono<AppEnv>();
  app.get('/review/next', async (c) => {
    const p = c.var.principal;
    const q = readQuery(c, nextQuery);
    const now = interlock.now();
    const skipped: Partial<Record<SkipReason, number>> = {};
    let cursor: string | undefined;
    let seen = 0;
    do {
      const page = await interlock.listRequests({
        status: 'pending',
        roles: p.roles,
        order: 'expiry',
        limit: PAGE,
        ...(cursor && { cursor }),
      });
      for (const r of page.items) {
        if (r.id === q.skip) continue;
        const why = await skipReason(interlock, r, p, now);
        if (!why) return c.json({ next: requestSummary(r), skipped });
        skipped[why] = (skipped[why] ?? 0) + 1;
      }
      seen += page.items.length;
      cursor = page.nextCursor ?? undefined;
    } while (cursor && seen < SCAN_LIMIT);
    return c.json({ next: null, skipped });
  });
  return app;
}
