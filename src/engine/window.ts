import type { ApprovalRequest } from '../core/index.ts';
import type { EngineContext } from './context.ts';

/** Median of a list, or null when empty. */
export function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Every request (real or planted, as `planted` says) created in [since, until), newest first. */
export async function requestsIn(
  ctx: EngineContext,
  since: number,
  until: number,
  q: { roles?: readonly string[]; planted: boolean },
): Promise<ApprovalRequest[]> {
  const out: ApprovalRequest[] = [];
  let cursor: string | undefined;
  // Newest first, stopping at the window's start: the cost follows the window, not the table.
  for (;;) {
    const page = await ctx.store.listRequests({
      order: 'newest',
      limit: 500,
      planted: q.planted,
      ...(q.roles ? { roles: [...q.roles] } : {}),
      ...(cursor ? { cursor } : {}),
    });
    let done = false;
    for (const r of page.items) {
      if (r.createdAt < since) {
        done = true;
        break;
      }
      if (r.createdAt < until) out.push(r);
    }
    if (done || !page.nextCursor) return out;
    cursor = page.nextCursor;
  }
}
