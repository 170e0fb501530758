/**
 * The OpenAPI paths of what a reviewer weighs beside a request: related requests on its subjects and
 * the current facts about its call (src/server/routes/related.ts).
 */

type Json = Record<string, unknown>;

const json = (schema: Json, description: string) => ({ description, content: { 'application/json': { schema } } });
const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), { $ref: `#/components/responses/E${s}` }]));
const idParam = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description: 'Id of the approval request.',
};
const sum = {
  type: 'object',
  properties: { count: { type: 'integer' }, amount: { type: ['number', 'null'] } },
};

/** The paths, spread into the document's `paths`. */
export function relatedPaths(): Json {
  return {
    '/api/v1/approvals/{id}/related': {
      get: {
        summary:
          "Other open and recent requests on the subjects the request's tool declares (its order, its customer), with their counts and amounts; those of roles the caller lacks are counted, not listed",
        parameters: [idParam],
        responses: {
          200: json(
            {
              type: 'object',
              properties: {
                subjects: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: {
                      key: { type: 'string' },
                      value: { type: ['string', 'number'] },
                      open: sum,
                      executed: sum,
                      requests: { type: 'array', items: { $ref: '#/components/schemas/RequestSummary' } },
                      hidden: { type: 'integer' },
                    },
                  },
                },
              },
            },
            'The related requests, by subject.',
          ),
          ...errors(401, 403, 404),
        },
      },
    },
    '/api/v1/approvals/{id}/facts': {
      get: {
        summary:
          "The facts about the request's call as of now (its tool's facts read again), against those recorded when it opened",
        parameters: [idParam],
        responses: {
          200: json(
            {
              type: 'object',
              properties: {
                asOf: { type: 'string', format: 'date-time' },
                refreshed: { type: 'boolean' },
                facts: { type: 'object' },
                atOpen: { type: 'object' },
                changed: { type: 'array', items: { type: 'string' } },
                error: { type: 'string' },
              },
            },
            'The facts.',
          ),
          ...errors(401, 403, 404),
        },
      },
    },
  };
}
