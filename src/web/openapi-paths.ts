import { z } from 'zod';
import { batchBody, batchQuery, outcomesQuery } from './routes/batch.ts';
import { dashboardQuery } from './routes/dashboard.ts';
import { nextQuery } from './routes/next-request.ts';

type Json = Record<string, unknown>;

function schema(s: z.ZodType): Json {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
  }) as Json;
  return rest;
}

function query(s: z.ZodType): Json[] {
  const props = (schema(s) as { properties?: Record<string, Json> }).properties ?? {};
  return Object.entries(props).map(([name, p]) => ({ name, in: 'query', required: false, schema: p }));
}

const ok = (description: string, body: Json = { type: 'object' }) => ({
  description,
  content: { 'application/json': { schema: body } },
});
const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), { $ref: `#/components/responses/E${s}` }]));

/** The batch endpoints' path items: a page of a group, its approval, the outcomes that follow. */
function batchApiPaths(): Record<string, unknown> {
  return {
    '/api/v1/batch': {
      get: {
        summary:
          "A page (at most 100) of the pending requests of one thread or one tool that the caller can approve, with the digest of exactly that list (batch review); after= the previous page's page.nextAfter gives the next page",
        parameters: query(batchQuery),
        responses: {
          200: ok(
            'The batch: group, items (request summaries), digest, page ({ from, to, total, totalIsLowerBound, nextAfter }), preselectUpTo, notes by id ({ amount, amountKey, subjects, warnings, preselected }), excluded (id, tool, reason; at most 100) and excludedCount.',
            {
              type: 'object',
              properties: {
                group: { type: 'object' },
                items: { type: 'array', items: { $ref: '#/components/schemas/RequestSummary' } },
                digest: { type: 'string' },
                page: { type: 'object' },
                preselectUpTo: { type: 'string', enum: ['none', 'approve'] },
                notes: { type: 'object' },
                excluded: { type: 'array', items: { type: 'object' } },
                excludedCount: { type: 'integer' },
              },
            },
          ),
          ...errors(400, 401, 404),
        },
      },
    },
    '/api/v1/batch/outcomes': {
      get: {
        summary:
          'Where approved requests stand, followed to their end: stage counting | waiting | running | ran | failed (with error) | not_run (with notRun: planted, cancelled, expired, rejected, responded, superseded). Requests of roles the caller lacks are left out.',
        parameters: query(outcomesQuery),
        responses: {
          200: ok(
            '{ items: [{ id, status, stage, approvalsReceived, approvalsRequired, error?, notRun?, supersededBy? }] }',
            {
              type: 'object',
              properties: { items: { type: 'array', items: { type: 'object' } } },
            },
          ),
          ...errors(400, 401),
        },
      },
    },
    '/api/v1/batch/decision': {
      post: {
        summary:
          'Approve exactly the list shown: digest = sha256 of the canonical JSON of [{ id, expectedVersion, actionHash }] in order. Items with skip: true stay in the list (and the digest) but are not decided. Each other item is decided on its own; the answer reports each.',
        requestBody: { required: true, content: { 'application/json': { schema: schema(batchBody) } } },
        responses: {
          200: ok(
            'Per-item results: { id, ok, outcome, status, approvalsReceived, approvalsRequired } or { id, ok: false, error: { code, message, status, details? } }; skipped lists the ids left undecided.',
            {
              type: 'object',
              properties: {
                digest: { type: 'string' },
                approved: { type: 'integer' },
                failed: { type: 'integer' },
                skipped: { type: 'array', items: { type: 'string' } },
                results: { type: 'array', items: { type: 'object' } },
              },
            },
          ),
          ...errors(400, 401, 403, 413, 429),
        },
      },
    },
  };
}

/** The OpenAPI path items of the endpoints the web UI adds under /api/v1. */
export function webApiPaths(): Record<string, unknown> {
  return {
    ...batchApiPaths(),
    '/api/v1/threads/{id}/timeline': {
      get: {
        summary:
          'A thread for its timeline page: conversation, requests (with toolCallId), audit events with reviewer names, audit chain status',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { 200: ok('The timeline.'), ...errors(401, 403, 404) },
      },
    },
    '/api/v1/dashboard': {
      get: {
        summary:
          'Per-tool interrupts, approval and correction rates, median time to decision, resume success and queue depth over time',
        parameters: query(dashboardQuery),
        responses: { 200: ok('The figures of the window.'), ...errors(400, 401) },
      },
    },
    '/api/v1/review/next': {
      get: {
        summary:
          'The pending request the caller should decide next (soonest expiry first), passing over those they cannot decide: other roles, their own proposals, those their approval already counts on, expired ones',
        parameters: query(nextQuery),
        responses: {
          200: ok('next: a request summary or null; skipped: how many were passed over, by refusal code.', {
            type: 'object',
            properties: {
              next: { oneOf: [{ $ref: '#/components/schemas/RequestSummary' }, { type: 'null' }] },
              skipped: { type: 'object', additionalProperties: { type: 'integer' } },
            },
          }),
          ...errors(400, 401),
        },
      },
    },
  };
}
