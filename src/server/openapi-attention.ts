/**
 * The OpenAPI paths of "needs attention": approved actions that failed when they ran
 * (src/server/routes/attention.ts).
 */

type Json = Record<string, unknown>;

const json = (schema: Json, description: string) => ({ description, content: { 'application/json': { schema } } });
const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), { $ref: `#/components/responses/E${s}` }]));
const count = { type: 'integer', description: 'How many failed approvals the caller sees in all.' };

/** The paths, spread into the document's `paths`. */
export function attentionPaths(): Json {
  return {
    '/api/v1/attention': {
      get: {
        summary:
          'Approved actions that failed when they ran, newest failure first: for a reviewer those they approved or decided on, for an operator all; with the error, when, and who approved',
        parameters: [
          {
            name: 'limit',
            in: 'query',
            schema: { type: 'integer', minimum: 1, maximum: 200 },
            description: 'Page size (default 50)',
          },
          {
            name: 'cursor',
            in: 'query',
            schema: { type: 'string' },
            description: 'nextCursor of the previous page, unchanged',
          },
        ],
        responses: {
          200: json(
            {
              type: 'object',
              properties: {
                items: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: {
                      request: { $ref: '#/components/schemas/RequestSummary' },
                      error: {
                        type: 'string',
                        description:
                          'The tool’s error, masked like evidence (card numbers, e-mail addresses, phone numbers).',
                      },
                      failedAt: { type: 'string', format: 'date-time' },
                      approvers: {
                        type: 'array',
                        items: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' } } },
                      },
                    },
                  },
                },
                nextCursor: { type: ['string', 'null'] },
                count,
              },
            },
            'A page of failed approvals and their count.',
          ),
          ...errors(400, 401),
        },
      },
    },
    '/api/v1/attention/count': {
      get: {
        summary: 'How many approved actions that failed the caller sees (the "Needs attention" count)',
        responses: {
          200: json({ type: 'object', properties: { count } }, 'The count.'),
          ...errors(401),
        },
      },
    },
  };
}
