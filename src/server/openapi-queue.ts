import type { z } from 'zod';
import { DECISION_TYPES } from '../core/approval.ts';
import { countQuery, listQuery, plantedQuery } from './schemas.ts';

/**
 * The OpenAPI paths of the approval queue: the listing, its count and the planted checks. Query parameters come from the zod
 * schemas the route validates with (through `queryParams`, openapi.ts's one conversion);
 * `arg.<name>` filters, which no fixed parameter list can name, are described in prose and by an example.
 */

type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), { $ref: `#/components/responses/E${s}` }]));

const ARG_FILTER: Json = {
  name: 'arg.<name>',
  in: 'query',
  required: false,
  schema: { type: 'string' },
  description:
    'Any `arg.<name>=<value>` (e.g. `arg.orderId=ORD-7`): the top-level argument equals the value, as text, case-insensitively. Plain argument names, at most 5 filters',
};

const FILTERS =
  'Filters combine: `q` (free text over tool, reason and arguments), `arg.<name>` (an argument value), `tool`, `tier`, `role`, `status`, `threadId`, `ids`.';

/** The queue item: a request with the decisions the caller may take on it now. */
export const queueItemSchema: Json = {
  allOf: [
    ref('RequestSummary'),
    {
      type: 'object',
      properties: {
        allowedDecisions: {
          type: 'array',
          items: { enum: [...DECISION_TYPES] },
          description:
            'What the caller may decide now (as on the review packet): empty when the role is not theirs, they proposed it (an edit), or it is no longer pending; no approve once their approval is counted.',
        },
      },
    },
  ],
};

/** `/api/v1/approvals`, `/api/v1/approvals/count` and `/api/v1/planted`. */
export function queuePaths(h: { queryParams: (s: z.ZodType) => Json[]; plantedCheck: Json }): Json {
  const { queryParams } = h;
  return {
    '/api/v1/approvals': {
      get: {
        summary: 'List approval requests (non-operators see their roles only)',
        description: `${FILTERS} Pages follow nextCursor in the same order.`,
        parameters: [...queryParams(listQuery), ARG_FILTER],
        responses: {
          200: {
            description: 'A page of requests.',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    items: { type: 'array', items: ref('QueueItem') },
                    names: {
                      type: 'object',
                      additionalProperties: { type: 'string' },
                      description: "Reviewer names by id, for the page's proposers and resolution.by.",
                    },
                    nextCursor: { type: ['string', 'null'] },
                  },
                },
              },
            },
          },
          ...errors(400, 401),
        },
      },
    },
    '/api/v1/approvals/count': {
      get: {
        summary: 'How many requests match the filters (the queue count; reads no request)',
        description: FILTERS,
        parameters: [...queryParams(countQuery), ARG_FILTER],
        responses: {
          200: {
            description: 'The count.',
            content: {
              'application/json': { schema: { type: 'object', properties: { count: { type: 'integer' } } } },
            },
          },
          ...errors(400, 401),
        },
      },
    },
    '/api/v1/planted': plantedPath(h),
  };
}

/** `/api/v1/planted`: operators' list of planted checks. */
function plantedPath(h: { queryParams: (s: z.ZodType) => Json[]; plantedCheck: Json }): Json {
  return {
    get: {
      summary: 'List planted checks, newest first, with whether each was caught (operators only)',
      parameters: h.queryParams(plantedQuery),
      responses: {
        200: {
          description: 'A page of planted checks.',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  items: {
                    type: 'array',
                    items: {
                      allOf: [ref('RequestSummary'), { type: 'object', properties: { plantedCheck: h.plantedCheck } }],
                    },
                  },
                  nextCursor: { type: ['string', 'null'] },
                },
              },
            },
          },
        },
        ...errors(400, 401, 403),
      },
    },
  };
}
