import {
  ConfigError,
  eligibilityRefusal,
  InterlockUsageError,
  NotFoundError,
  type ApprovalRequest,
  type Reviewer,
} from '../core/index.ts';
import type { ClaimRow } from '../store/types.ts';
import type { ClaimEventView, EngineContext, EngineEvent } from './context.ts';
import { commitWithEvents } from './commit-events.ts';

/** Default of {@link InterlockOptions.claimMs}: a claim lapses ten minutes after its last renewal. */
export const DEFAULT_CLAIM_MS = 10 * 60_000;

/** `claimMs` of createInterlock's options, checked when the engine is made: default {@link DEFAULT_CLAIM_MS}. */
export function claimTimeout(claimMs: number | undefined): number {
  const ms = claimMs ?? DEFAULT_CLAIM_MS;
  if (!Number.isInteger(ms) || ms < 1000)
    throw new ConfigError(
      `createInterlock: "claimMs" must be a whole number of milliseconds, at least 1000 (e.g. 600000 for ten minutes), not ${String(claimMs)}.`,
    );
  return ms;
}

/** A reviewer's claim on a request: "Dana is looking at this since 14:02". */
export interface Claim {
  requestId: string;
  /** The holder's reviewer id. */
  reviewer: string;
  /** The holder's name, for other reviewers' screens. */
  name: string;
  /** When the holder first claimed it (epoch ms; kept while they renew). */
  since: number;
  /** When it lapses unless renewed (epoch ms). */
  expiresAt: number;
  /** Taken by opening the card rather than by the Claim button. */
  auto: boolean;
}

/**
 * Claims: who is looking at a request. Advisory — no decision reads them, any reviewer who may decide
 * still can — and timed: a claim lapses `timeoutMs` after it was last taken or renewed. Each change
 * is a live event (`claim.changed`) for the other reviewers' screens.
 */
export interface ClaimOps {
  /** How long a claim lasts unless renewed, in ms. */
  readonly timeoutMs: number;
  /**
   * Claim the request for `reviewer`, or renew their claim. Someone else's live claim is left alone
   * (`claimed: false`, with theirs) unless `takeOver`. `auto`: taken by opening the card. Refused
   * for a reviewer who may not decide it (`forbidden_role`, `self_approval`) and for a request that
   * takes no more decisions (`already_resolved`, `request_expired`).
   */
  claim(
    requestId: string,
    reviewer: Reviewer,
    opts?: { auto?: boolean; takeOver?: boolean },
  ): Promise<{ claimed: boolean; claim: Claim }>;
  /** Give back `reviewerId`'s claim on the request; false when they held none (never someone else's). */
  release(requestId: string, reviewerId: string): Promise<boolean>;
  /** The live claim on a pending request, if any. */
  get(requestId: string): Promise<Claim | undefined>;
  /** Live claims on pending requests (of `roles` only, when given), with each request's role. */
  list(roles?: readonly string[]): Promise<Array<Claim & { role: string }>>;
}

const claimOf = (r: ClaimRow): Claim => ({
  requestId: r.requestId,
  reviewer: r.reviewer,
  name: r.reviewerName,
  since: r.since,
  expiresAt: r.expiresAt,
  auto: r.auto,
});

/** A claim as live events carry it (ISO times, as the API shows them). */
export function claimEventView(c: Claim): ClaimEventView {
  return {
    reviewer: c.reviewer,
    name: c.name,
    since: new Date(c.since).toISOString(),
    expiresAt: new Date(c.expiresAt).toISOString(),
    auto: c.auto,
  };
}

/** Why `reviewer` may not claim `req` now, or undefined. */
function claimRefusal(req: ApprovalRequest, reviewer: Reviewer, now: number): InterlockUsageError | undefined {
  // Who may look is who may decide: the role, and never the proposer (as for any decision).
  const refusal = eligibilityRefusal(req, reviewer, 'reject', []);
  if (refusal) return refusal;
  if (req.status !== 'pending')
    return new InterlockUsageError(
      'already_resolved',
      `Approval request ${req.id} is already ${req.status}; there is nothing left to claim.`,
      { details: { requestId: req.id, status: req.status } },
    );
  if (now >= req.expiresAt)
    return new InterlockUsageError(
      'request_expired',
      `Approval request ${req.id} expired at ${new Date(req.expiresAt).toISOString()}; there is nothing left to claim.`,
      { details: { requestId: req.id } },
    );
  return undefined;
}

/** The engine's claim operations over `ctx`, with claims lasting `timeoutMs`. */
export function claimOps(ctx: EngineContext, timeoutMs: number): ClaimOps {
  const requestOf = async (id: string) => {
    const req = await ctx.store.getRequest(id);
    if (!req) throw new NotFoundError('approval_request', id);
    return req;
  };
  return {
    timeoutMs,
    async claim(requestId, reviewer, opts = {}) {
      const req = await requestOf(requestId);
      const now = ctx.now();
      const refusal = claimRefusal(req, reviewer, now);
      if (refusal) throw refusal;
      const row = { requestId, reviewer: reviewer.id, reviewerName: reviewer.name ?? reviewer.id, since: now };
      const put = await commitWithEvents(
        ctx,
        (tx) => tx.putClaim({ ...row, expiresAt: now + timeoutMs, auto: opts.auto === true }, opts.takeOver === true),
        (p): EngineEvent[] =>
          p.claimed
            ? [{ type: 'claim.changed', requestId, threadId: req.threadId, claim: claimEventView(claimOf(p.claim)) }]
            : [],
      );
      return { claimed: put.claimed, claim: claimOf(put.claim) };
    },
    async release(requestId, reviewerId) {
      const req = await requestOf(requestId);
      return commitWithEvents(
        ctx,
        (tx) => tx.deleteClaim(requestId, reviewerId),
        (released): EngineEvent[] =>
          released ? [{ type: 'claim.changed', requestId, threadId: req.threadId, claim: null }] : [],
      );
    },
    async get(requestId) {
      const row = await ctx.store.getClaim(requestId, ctx.now());
      return row && claimOf(row);
    },
    async list(roles) {
      return (await ctx.store.listClaims(ctx.now(), roles)).map((r) => ({ ...claimOf(r), role: r.role }));
    },
  };
}
