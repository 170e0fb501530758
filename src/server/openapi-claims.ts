import { z } from 'zod';
import { claimBody, noteBody } from './routes/claims-notes.ts';

/**
 * The OpenAPI paths of claims ("Dana is looking at this") and internal notes on requests
 * (src/server/routes/claims-notes.ts). Bodies come from the zod schemas the routes validate with.
 */

type Json = Record<string, unknown>;

const body = (s: z.ZodType): Json => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { target: 'draft-2020-12', io: 'input' }) as Json;
  return { required: true, content: { 'application/json': { schema: rest } } };
};
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
const time = { type: 'string', format: 'date-time' };
const claim = {
  type: 'object',
  description: 'Who is looking at the request, since when, until when unless renewed.',
  properties: {
    requestId: { type: 'string' },
    reviewer: { type: 'string' },
    name: { type: 'string' },
    since: time,
    expiresAt: time,
    auto: { type: 'boolean', description: 'Taken by opening the card.' },
  },
};
const note = {
  type: 'object',
  description: 'An internal note: for reviewers only, never sent to the agent.',
  properties: {
    id: { type: 'string' },
    requestId: { type: 'string' },
    author: { type: 'string' },
    authorName: { type: 'string' },
    text: { type: 'string' },
    createdAt: time,
    internal: { const: true },
  },
};
const timeoutMs = { type: 'integer', description: 'How long a claim lasts unless renewed (ms).' };

/** The paths, spread into the document's `paths`. */
export function claimNotePaths(): Json {
  return {
    '/api/v1/claims': {
      get: {
        summary: 'Live claims on the pending requests the caller may see (who is looking at what)',
        responses: {
          200: json(
            { type: 'object', properties: { items: { type: 'array', items: claim }, timeoutMs } },
            'The claims.',
          ),
          ...errors(401),
        },
      },
    },
    '/api/v1/approvals/{id}/claim': {
      get: {
        summary: "The request's live claim, or null",
        parameters: [idParam],
        responses: {
          200: json(
            { type: 'object', properties: { claim: { ...claim, type: ['object', 'null'] }, timeoutMs } },
            'The claim.',
          ),
          ...errors(401, 403, 404),
        },
      },
      post: {
        summary:
          "Claim the request (or renew your claim): advisory, it never blocks a decision. Another reviewer's live claim is kept (claimed: false) unless takeOver. Claiming again before it lapses renews it.",
        parameters: [idParam],
        requestBody: body(claimBody),
        responses: {
          200: json(
            { type: 'object', properties: { claimed: { type: 'boolean' }, claim, timeoutMs } },
            'The claim that holds now, and whether it is yours. An automatic claim (`auto: true`) of a request that no longer takes decisions answers `claimed: false, claim: null` (a claim by hand gets 409 or 410).',
          ),
          ...errors(400, 401, 403, 404, 409, 410),
        },
      },
    },
    '/api/v1/approvals/{id}/claim/release': {
      post: {
        summary: 'Give back your claim on the request (never someone else’s); a decision ends it too',
        parameters: [idParam],
        responses: {
          200: json({ type: 'object', properties: { released: { type: 'boolean' } } }, 'Whether you held it.'),
          ...errors(401, 403, 404),
        },
      },
    },
    '/api/v1/approvals/{id}/notes': {
      get: {
        summary: "The request's internal notes, oldest first",
        parameters: [idParam],
        responses: {
          200: json({ type: 'object', properties: { items: { type: 'array', items: note } } }, 'The notes.'),
          ...errors(401, 403, 404),
        },
      },
      post: {
        summary:
          'Add an internal note (audited as note_added): shown to reviewers on the card and the thread page, never in a decision or anything the agent reads',
        parameters: [idParam],
        requestBody: body(noteBody),
        responses: { 201: json(note, 'The note.'), ...errors(400, 401, 403, 404) },
      },
    },
  };
}
