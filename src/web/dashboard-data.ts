import type { ApprovalRequest } from '../core/index.ts';
import type { Interlock } from '../engine/index.ts';
import type { DashboardData } from './dashboard-types.ts';

/** Windows the metrics page offers, in milliseconds. */
export const DASHBOARD_WINDOWS = {
  '1h': 3_600_000,
  '24h': 86_400_000,
  '7d': 7 * 86_400_000,
  '30d': 30 * 86_400_000,
} as const;
export type DashboardWindow = keyof typeof DASHBOARD_WINDOWS;
// The page's window names and the API's declared ones are the same list.
const _sameWindows: DashboardWindow = '' as DashboardData['window'];
void _sameWindows;

/** How far before the window a request may have been created and still be pending in it. */
const LOOKBACK_MS = 7 * 86_400_000;
/** Requests read at most to draw the queue depth (newest first). */
const MAX_SCANNED = 20_000;

export type { DashboardData } from './dashboard-types.ts';

/**
 * Pending requests at each of `points` instants between `since` and `until`:
 * a request is in the queue from its creation until it was resolved (or now, when still pending).
 */
export function queueDepthSeries(
  requests: readonly Pick<ApprovalRequest, 'createdAt' | 'resolvedAt' | 'status'>[],
  since: number,
  until: number,
  points = 48,
): Array<{ at: number; depth: number }> {
  const step = (until - since) / (points - 1);
  const out: Array<{ at: number; depth: number }> = [];
  for (let i = 0; i < points; i++) {
    const t = Math.round(since + i * step);
    let depth = 0;
    for (const r of requests) {
      if (r.createdAt > t) continue;
      const left = r.resolvedAt ?? (r.status === 'pending' ? Infinity : r.createdAt);
      if (left > t) depth++;
    }
    out.push({ at: t, depth });
  }
  return out;
}

/** The metrics page's data for `window` ending now; with `roles`, only requests of those roles (a reviewer's view). */
export async function dashboardData(
  interlock: Interlock,
  window: DashboardWindow,
  roles?: readonly string[],
): Promise<DashboardData> {
  const until = interlock.now();
  const since = until - DASHBOARD_WINDOWS[window];
  // The roll-up's end is exclusive: +1 keeps requests created this very millisecond.
  // Operators (no role filter) also get the planted checks' yield and the reviewers' pace.
  const rollup = await interlock.rollup(since, until + 1, roles ? { roles } : { oversight: true });
  const requests: ApprovalRequest[] = [];
  let cursor: string | undefined;
  let truncated = false;
  // Newest first, back to the oldest request that could still have been pending in the window.
  for (;;) {
    const page = await interlock.listRequests({
      order: 'newest',
      limit: 500,
      // Planted checks too: the dashboard is a reviewer's read, and leaving them out would count them.
      ...(roles ? { roles: [...roles] } : {}),
      ...(cursor ? { cursor } : {}),
    });
    let done = false;
    for (const r of page.items) {
      if (r.createdAt < since - LOOKBACK_MS) {
        done = true;
        break;
      }
      requests.push(r);
    }
    if (requests.length >= MAX_SCANNED) truncated = !done && page.nextCursor !== null;
    if (done || truncated || !page.nextCursor) break;
    cursor = page.nextCursor;
  }
  return {
    window,
    since: new Date(since).toISOString(),
    until: new Date(until).toISOString(),
    rollup: {
      tools: rollup.tools,
      tiers: rollup.tiers,
      agents: rollup.agents,
      threads: rollup.threads,
      queue: rollup.queue,
      resume: rollup.resume,
      ...(rollup.oversight ? { oversight: rollup.oversight } : {}),
    },
    queueDepth: queueDepthSeries(requests, since, until).map((p) => ({
      at: new Date(p.at).toISOString(),
      depth: p.depth,
    })),
    pendingNow: requests.filter((r) => r.status === 'pending').length,
    truncated,
    names: Object.fromEntries((await interlock.reviewers.listReviewers()).map((r) => [r.id, r.name])),
  };
}
