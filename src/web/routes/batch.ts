import { Hono } from 'hono';
import { z } from 'zod';
import {
  InterlockError,
  InterlockUsageError,
  NotFoundError,
  ValidationError,
  type Reviewer,
} from '../../core/index.ts';
import type { Interlock } from '../../engine/index.ts';
import { safeEqual } from '../../server/auth.ts';
import { httpStatus, RateLimitedError } from '../../server/errors.ts';
import { readJson, readQuery } from '../../server/input.ts';
import type { RateLimiter } from '../../server/rate-limit.ts';
import type { AppEnv, RouteDeps } from '../../server/types.ts';
import { requestSummary } from '../../server/views.ts';
import { batchDigest } from '../batch-digest.ts';
import { batchNotes, type ToolHints } from '../batch-notes.ts';
import { checkBatchOptions, type BatchOptions } from '../batch-options.ts';
import { batchOutcomes } from '../batch-outcomes.ts';
import { MAX_BATCH, scanBatch } from '../batch-scan.ts';
import type { BatchAnswerBase } from '../batch-types.ts';

export { MAX_BATCH } from '../batch-scan.ts';

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
    after: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('The last request of the previous page (page.nextAfter): the page starts after it.'),
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

/** Query of GET /batch/outcomes: the requests a page approved, comma-separated. */
export const outcomesQuery = z.strictObject({
  ids: z
    .string()
    .min(1)
    .max(MAX_BATCH * 201)
    .describe(`Request ids, comma-separated (at most ${MAX_BATCH}).`),
});

/** The ids of an outcomes query, each once, at most {@link MAX_BATCH}. */
function idsOf(q: z.infer<typeof outcomesQuery>): string[] {
  const ids = [...new Set(q.ids.split(',').filter((x) => x !== ''))];
  if (ids.length === 0 || ids.length > MAX_BATCH || ids.some((x) => x.length > 200))
    throw new ValidationError(
      `Give between 1 and ${MAX_BATCH} request ids, comma-separated, each at most 200 characters.`,
      [{ path: 'ids', message: `1 to ${MAX_BATCH} ids` }],
    );
  return ids;
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
    const status = httpStatus(err);
    // As on the single-decision route: a refusal's details (the request's status now…), never a fault's.
    const details = status < 500 && Object.keys(err.details).length ? { details: err.details } : {};
    return { id: item.id, ok: false as const, error: { code: err.code, message: err.message, status, ...details } };
  }
}

/** The request a page continues after, or a 404 naming it. */
async function afterRequest(interlock: Interlock, after: string | undefined) {
  if (after === undefined) return undefined;
  const r = await interlock.getRequest(after);
  if (!r) throw new NotFoundError('approval_request', after);
  return r;
}

/**
 * Batch review: GET /batch shows a page of the pending requests of one thread
 * or one tool that the caller can approve (at most {@link MAX_BATCH}, with
 * where the page stands among them all, notes and warnings per item, and the
 * digest of that list); POST /batch/decision approves exactly that list — the
 * items the reviewer did not tick travel with `skip: true`, so the digest
 * still covers the list shown. Each other item is decided by the engine on its
 * own (all-or-nothing per item, with its version and action hash), and the
 * answer reports each item's result. GET /batch/outcomes follows approved
 * requests to their end (ran, failed and why, did not run and why).
 */
export function batchRoutes(
  deps: RouteDeps,
  limiter: RateLimiter | undefined,
  options: BatchOptions = {},
): Hono<AppEnv> {
  const { interlock } = deps;
  const { preselectUpTo } = checkBatchOptions(options);
  // What each tool declares about its arguments (which name its subject, which its amount).
  const hintsOf = (tool: string): ToolHints | undefined => interlock.toolSchema(tool);
  const app = new Hono<AppEnv>();

  app.get('/batch', async (c) => {
    const p = c.var.principal;
    const q = readQuery(c, batchQuery);
    const scan = await scanBatch(interlock, p, q, await afterRequest(interlock, q.after));
    const answer: BatchAnswerBase = {
      group: q.threadId ? { by: 'thread', threadId: q.threadId } : { by: 'tool', tool: q.tool! },
      digest: batchDigest(scan.items.map((r) => ({ id: r.id, expectedVersion: r.version, actionHash: r.actionHash }))),
      page: scan.page,
      preselectUpTo,
      notes: batchNotes(scan.items, hintsOf, preselectUpTo),
      excluded: scan.excluded,
      excludedCount: scan.excludedCount,
    };
    return c.json({ ...answer, items: scan.items.map(requestSummary) });
  });

  app.get('/batch/outcomes', async (c) => {
    const ids = idsOf(readQuery(c, outcomesQuery));
    return c.json({ items: await batchOutcomes(interlock, c.var.principal, ids) });
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
