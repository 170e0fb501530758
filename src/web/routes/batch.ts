import { Hono } from 'hono';
import { z } from 'zod';
import {
  eligibilityRefusal,
  InterlockError,
  InterlockUsageError,
  ValidationError,
  type ApprovalRequest,
  type Reviewer,
} from '../../core/index.ts';
import type { Interlock } from '../../engine/index.ts';
import { safeEqual, type Principal } from '../../server/auth.ts';
import { httpStatus, RateLimitedError } from '../../server/errors.ts';
import { readJson, readQuery } from '../../server/input.ts';
import type { RateLimiter } from '../../server/rate-limit.ts';
import type { AppEnv, RouteDeps } from '../../server/types.ts';
import { requestSummary } from '../../server/views.ts';
import { batchDigest } from '../batch-digest.ts';

/** Most requests one batch may hold. */
export const MAX_BATCH = 100;

/** The items sent do not hash to the digest sent: the list is not the one that was shown. */
export class BatchDigestError extends InterlockUsageError {
  constructor() {
    super(
      'batch_digest_mismatch',
      'The digest does not match the items: a batch approval covers exactly the list that was shown. Reload the batch, review it, and approve again.',
      {},
    );
  }
}

/** Query of GET /batch. */
export const batchQuery = z
  .strictObject({
    threadId: z.string().min(1).max(200).optional(),
    tool: z.string().min(1).max(200).optional(),
  })
  .refine((q) => (q.threadId === undefined) !== (q.tool === undefined), {
    message: 'give exactly one of threadId or tool',
    path: ['threadId'],
  });

/** Body of POST /batch/decision. */
export const batchBody = z.strictObject({
  type: z.literal('approve').describe('Batches approve; reject, edit and respond are decided one by one.'),
  items: z
    .array(
      z.strictObject({
        id: z.string().min(1).max(200),
        expectedVersion: z.number().int().positive(),
        actionHash: z.string().min(1).max(256),
        skip: z
          .boolean()
          .optional()
          .describe('true: shown in the list (and in its digest) but left undecided — the reviewer did not tick it.'),
      }),
    )
    .min(1)
    .max(MAX_BATCH),
  digest: z.string().regex(/^[0-9a-f]{64}$/, 'the 64 hex digits of the digest the batch was shown with'),
});

type BatchBody = z.infer<typeof batchBody>;

/** What a batch tells a reviewer about why a request is not in it, by eligibility refusal code. */
const EXCLUDED_BECAUSE: Record<string, (r: ApprovalRequest) => string> = {
  forbidden_role: (r) => `needs the "${r.role}" role`,
  self_approval: () => 'you proposed it',
  duplicate_reviewer: () => 'you already approved it',
};

/** Why `p` cannot approve `r` now, or undefined when they can (the core's one eligibility rule decides). */
function cannotApprove(r: ApprovalRequest, p: Principal, voters: readonly string[], now: number): string | undefined {
  if (now >= r.expiresAt) return 'expired';
  const refusal = eligibilityRefusal(r, p, 'approve', voters);
  if (refusal) return EXCLUDED_BECAUSE[refusal.code]?.(r) ?? refusal.message;
  return r.status === 'pending' ? undefined : 'not pending';
}

/** Refuse a batch that names a request twice, does not hash to its digest, or approves nothing. */
function checkBatch(body: BatchBody): void {
  const seen = new Set<string>();
  for (const [i, item] of body.items.entries()) {
    if (seen.has(item.id))
      throw new ValidationError(`Request ${item.id} appears twice in the batch; send each request once.`, [
        { path: `items.${i}.id`, message: 'duplicate' },
      ]);
    seen.add(item.id);
  }
  if (!safeEqual(batchDigest(body.items), body.digest)) throw new BatchDigestError();
  if (body.items.every((i) => i.skip === true)) {
    throw new ValidationError('Every item of the batch is marked skip: tick at least one request to approve.', [
      { path: 'items', message: 'nothing to approve' },
    ]);
  }
}

/** Approve one item as its own guarded decision; the engine's refusal becomes that item's result. */
async function approveItem(interlock: Interlock, item: BatchBody['items'][number], reviewer: Reviewer) {
  try {
    const r = await interlock.decide(
      item.id,
      { type: 'approve', expectedVersion: item.expectedVersion, actionHash: item.actionHash },
      reviewer,
    );
    // The count lets a reviewer read "counted 1 of 2 toward the quorum" rather than "approved".
    return {
      id: item.id,
      ok: true as const,
      outcome: r.outcome,
      status: r.request.status,
      approvalsReceived: r.request.approvalsReceived,
      approvalsRequired: r.request.approvalsRequired,
    };
  } catch (err) {
    if (!(err instanceof InterlockError)) throw err;
    return {
      id: item.id,
      ok: false as const,
      error: { code: err.code, message: err.message, status: httpStatus(err) },
    };
  }
}

/**
 * Batch review: GET /batch shows the pending requests of one thread or one
 * tool that the caller can approve, with the digest of that list; POST
 * /batch/decision approves exactly that list — the items the reviewer did not
 * tick travel with `skip: true`, so the digest still covers the list shown.
 * Each other item is decided by the engine on its own (all-or-nothing per
 * item, with its version and action hash), and the answer reports each
 * item's result.
 */
export function batchRoutes(deps: RouteDeps, limiter: RateLimiter | undefined): Hono<AppEnv> {
  const { interlock } = deps;
  const app = new Hono<AppEnv>();

  app.get('/batch', async (c) => {
    const p = c.var.principal;
    const q = readQuery(c, batchQuery);
    const page = await interlock.listRequests({
      status: 'pending',
      order: 'expiry',
      limit: 500,
      ...(p.operator ? {} : { roles: p.roles }),
      ...(q.threadId ? { threadId: q.threadId } : { tool: q.tool! }),
    });
    const now = interlock.now();
    const items: ApprovalRequest[] = [];
    const excluded: Array<{ id: string; tool: string; reason: string }> = [];
    for (const r of page.items) {
      const why = cannotApprove(r, p, await interlock.requests.listVoters(r.id), now);
      if (why === undefined && items.length < MAX_BATCH) items.push(r);
      else excluded.push({ id: r.id, tool: r.tool, reason: why ?? `batches hold at most ${MAX_BATCH} requests` });
    }
    return c.json({
      group: q.threadId ? { by: 'thread', threadId: q.threadId } : { by: 'tool', tool: q.tool },
      items: items.map(requestSummary),
      digest: batchDigest(items.map((r) => ({ id: r.id, expectedVersion: r.version, actionHash: r.actionHash }))),
      excluded,
    });
  });

  app.post('/batch/decision', async (c) => {
    const p = c.var.principal;
    if (limiter) {
      const waitMs = limiter.take(p.id);
      if (waitMs > 0) throw new RateLimitedError(Math.ceil(waitMs / 1000));
    }
    const body = await readJson(c, batchBody, 'batch decision');
    checkBatch(body);
    const reviewer = { id: p.id, name: p.name, roles: p.roles };
    const results = [];
    const skipped: string[] = [];
    // One at a time, in the order shown: each decision is its own guarded transaction.
    for (const item of body.items) {
      if (item.skip === true) {
        skipped.push(item.id);
        continue;
      }
      results.push(await approveItem(interlock, item, reviewer));
    }
    return c.json({
      digest: body.digest,
      approved: results.filter((r) => r.ok).length,
      failed: results.filter((r) => !r.ok).length,
      skipped,
      results,
    });
  });

  return app;
}
