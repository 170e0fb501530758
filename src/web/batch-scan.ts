import { eligibilityRefusal, type ApprovalRequest } from '../core/index.ts';
import type { Interlock } from '../engine/index.ts';
import type { Principal } from '../server/auth.ts';
import type { BatchPageInfo } from './batch-types.ts';

/** Most requests one batch page holds (and one batch approval sends). */
export const MAX_BATCH = 100;
/** Most of a group's pending requests read to count and page them; past this the total is "at least". */
export const MAX_SCAN = 5_000;
/** Most excluded requests listed by name (all are counted). */
const MAX_EXCLUDED_LISTED = 100;

/** What a batch tells a reviewer about why a request is not in it, by eligibility refusal code. */
const EXCLUDED_BECAUSE: Record<string, (r: ApprovalRequest) => string> = {
  forbidden_role: (r) => `needs the "${r.role}" role`,
  self_approval: () => 'you proposed it',
  duplicate_reviewer: () => 'you already approved it',
};

/** Why `p` cannot approve `r` now, or undefined when they can (the core's one eligibility rule decides). */
async function cannotApprove(interlock: Interlock, r: ApprovalRequest, p: Principal, now: number) {
  if (now >= r.expiresAt) return 'expired';
  // Only a request with approvals has voters: the others need no read.
  const voters = r.approvalsReceived > 0 ? await interlock.requests.listVoters(r.id) : [];
  const refusal = eligibilityRefusal(r, p, 'approve', voters);
  if (refusal) return EXCLUDED_BECAUSE[refusal.code]?.(r) ?? refusal.message;
  return r.status === 'pending' ? undefined : 'not pending';
}

/** One page of a group's requests that `p` can approve, and where it stands among them all. */
export interface BatchScan {
  items: ApprovalRequest[];
  page: BatchPageInfo;
  excluded: Array<{ id: string; tool: string; reason: string }>;
  excludedCount: number;
}

/** The group's pending requests in expiry order (soonest first), at most {@link MAX_SCAN}, and whether there were more. */
async function pendingOfGroup(
  interlock: Interlock,
  p: Principal,
  group: { threadId?: string | undefined; tool?: string | undefined },
): Promise<{ all: ApprovalRequest[]; more: boolean }> {
  const all: ApprovalRequest[] = [];
  let cursor: string | null = null;
  do {
    const got = await interlock.listRequests({
      status: 'pending',
      order: 'expiry',
      limit: 500,
      ...(p.operator ? {} : { roles: p.roles }),
      ...(group.threadId ? { threadId: group.threadId } : { tool: group.tool! }),
      ...(cursor ? { cursor } : {}),
    });
    all.push(...got.items);
    cursor = got.nextCursor;
  } while (cursor && all.length < MAX_SCAN);
  return { all, more: cursor !== null };
}

/** Where the page after request `after` starts in `eligible` (in the store's order). */
function pageStart(eligible: readonly ApprovalRequest[], after: ApprovalRequest | undefined): number {
  if (!after) return 0;
  // Still in the list: the store's own order places it. Decided meanwhile: by its expiry and id.
  const at = eligible.findIndex((r) => r.id === after.id);
  if (at >= 0) return at + 1;
  const next = eligible.findIndex(
    (r) => r.expiresAt > after.expiresAt || (r.expiresAt === after.expiresAt && r.id > after.id),
  );
  return next === -1 ? eligible.length : next;
}

/**
 * The page of a group (a thread or a tool) that `p` can approve: the {@link MAX_BATCH} requests
 * after request `after` (from the start without it) in expiry order, with their positions among
 * all the group's requests `p` can approve, and the ones `p` cannot, each with why. Paging by the
 * last request shown, not by a number, so requests decided meanwhile do not shift the next page.
 */
export async function scanBatch(
  interlock: Interlock,
  p: Principal,
  group: { threadId?: string | undefined; tool?: string | undefined },
  after: ApprovalRequest | undefined,
): Promise<BatchScan> {
  const { all, more } = await pendingOfGroup(interlock, p, group);
  const now = interlock.now();
  const eligible: ApprovalRequest[] = [];
  const excluded: BatchScan['excluded'] = [];
  let excludedCount = 0;
  for (const r of all) {
    const why = await cannotApprove(interlock, r, p, now);
    if (why === undefined) eligible.push(r);
    else if (excludedCount++ < MAX_EXCLUDED_LISTED) excluded.push({ id: r.id, tool: r.tool, reason: why });
  }
  const start = pageStart(eligible, after);
  const items = eligible.slice(start, start + MAX_BATCH);
  const to = start + items.length;
  return {
    items,
    page: {
      from: items.length ? start + 1 : 0,
      to: items.length ? to : 0,
      total: eligible.length,
      totalIsLowerBound: more,
      nextAfter: to < eligible.length ? items[items.length - 1]!.id : null,
    },
    excluded,
    excludedCount,
  };
}
