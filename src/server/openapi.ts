import { relatedPaths } from './openapi-related.ts';
import { attentionPaths } from './openapi-attention.ts';
import { claimNotePaths } from './openapi-claims.ts';
import { z } from 'zod';
import { DECISION_TYPES } from '../core/index.ts';
import { auditQuery, decisionBody, requestSummarySchema, startThreadBody, threadQuery } from './schemas.ts';
import { HTTP_STATUS } from './errors.ts';
import { queueItemSchema, queuePaths } from './openapi-queue.ts';

/**
 * The OpenAPI 3.1 document of the HTTP API. Request bodies and query
 * parameters come from the same zod schemas the routes validate with; the
 * response shapes are written here.
 */

type Json = Record<string, unknown>;

const jsonSchema = (s: z.ZodType, io: 'input' | 'output' = 'input'): Json => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
  }) as Json;
  return rest;
};

/** Query parameters of an object schema, one per property. */
function queryParams(s: z.ZodType): Json[] {
  const schema = jsonSchema(s) as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, p]) => ({
    name,
    in: 'query',
    required: schema.required?.includes(name) ?? false,
    schema: p,
    ...(typeof p.description === 'string' && { description: p.description }),
  }));
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Json, description: string) => ({ description, content: { 'application/json': { schema } } });
const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), { $ref: `#/components/responses/E${s}` }]));
const idParam = (what: string) => ({
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description: `Id of the ${what}.`,
});

/** What to do about each status's refusals; the codes themselves come from HTTP_STATUS (the error union). */
const ERROR_HINT: Record<number, string> = {
  400: 'the body or query is malformed: details.issues names each field; an edit naming fields the tool does not take lists them in details.fields.',
  401: 'send a valid "Authorization: Bearer <token>".',
  403: "this reviewer may not make this decision; csrf_failed is a session-cookie write without this server's Origin and X-CSRF-Token.",
  404: 'nothing by that id or path (<kind>_not_found names the kind, e.g. approval_request_not_found, thread_not_found).',
  409: 'reload and review again (stale_version, action_hash_mismatch, already_resolved); thread_exists: start a new thread.',
  410: 'the request expired: its timeout default applies.',
  413: 'bodies are limited to 64 KiB.',
  422: "reason_required: the request's rule needs a reason to reject; send it as message (details.choices lists the rule's canned reasons).",
  429: 'wait Retry-After seconds.',
  501: 'the server runs without that part (e.g. a threads adapter).',
  503: 'the database does not answer: retry after the Retry-After seconds.',
};

/** Each documented status's description: its codes, derived from the one status map, and the hint. */
const ERROR_TEXT: Record<number, string> = Object.fromEntries(
  Object.entries(ERROR_HINT).map(([status, hint]) => {
    const codes = Object.entries(HTTP_STATUS)
      .filter(([, s]) => s === Number(status))
      .map(([code]) => code);
    return [status, `${codes.join(', ')}: ${hint}`];
  }),
);

// The request's shape is declared once, as a zod schema (server/schemas.ts).
const { $schema: _schemaDialect, ...requestSummary } = z.toJSONSchema(requestSummarySchema, { io: 'output' }) as Json;

// Said only once the request is decided: until then a planted check reads like any request.
const plantedCheckSchema: Json = {
  type: 'object',
  properties: { caught: { type: ['boolean', 'null'] } },
  description:
    'Present once decided when the request was a planted check (docs/metrics.md): caught is true when it was rejected or answered, false when approved or edited, null when it timed out.',
};

const reviewPacket: Json = {
  allOf: [
    ref('RequestSummary'),
    {
      type: 'object',
      properties: {
        argsSchema: {
          type: ['object', 'null'],
          description: 'JSON Schema of the tool arguments, for the edit form; null if unknown.',
        },
        escalateTo: { type: ['object', 'null'] },
        trustable: { type: 'boolean' },
        approvedBy: { type: 'array', items: { type: 'string' } },
        names: {
          type: 'object',
          additionalProperties: { type: 'string' },
          description: 'Reviewer names by id, for the ids in approvedBy, resolution.by and proposer.',
        },
        allowedDecisions: {
          type: 'array',
          items: { enum: [...DECISION_TYPES] },
          description: 'What the caller may decide now.',
        },
        refusals: {
          type: 'object',
          additionalProperties: { type: 'string' },
          description:
            'Each decision the caller cannot take now, with the error code the API would refuse it with (forbidden_role, self_approval, duplicate_reviewer, already_resolved, request_expired, decision_not_allowed).',
        },
        computed: {
          type: 'object',
          properties: { evidence: { type: 'object' }, asOf: { type: 'string', format: 'date-time' } },
          description:
            "Facts the tool's evidence() computed when the request was first opened (asOf); not written by the customer or the model.",
        },
        untrusted: {
          type: 'object',
          properties: { evidence: { type: 'object' } },
          description:
            "Redacted customer and model text: render as plain text only. In a sub-agent's thread, customerMessage is the root conversation's and parentAgentAsked the parent agent's request.",
        },
        ended: {
          type: ['object', 'null'],
          properties: {
            at: { type: 'string', format: 'date-time' },
            error: { type: ['string', 'null'] },
            reason: { type: ['string', 'null'] },
          },
          description:
            "How an executed, failed or cancelled request ended: the failed execution's error (masked), or why it was cancelled.",
        },
        replacement: {
          type: ['object', 'null'],
          description:
            'The request an edit or escalation handed over to: id, ruleId, reason, tier, requiredRole, approvalsRequired, status.',
        },
        plantedCheck: plantedCheckSchema,
      },
    },
  ],
};

/** One approval request: its review packet, deciding it and its story. */
function requestPaths(): Json {
  return {
    '/api/v1/approvals/{id}': {
      get: {
        summary: 'The review packet of one request',
        parameters: [idParam('approval request')],
        responses: { 200: json(ref('ReviewPacket'), 'The review packet.'), ...errors(401, 403, 404) },
      },
    },
    '/api/v1/approvals/{id}/decision': {
      post: {
        summary: 'Decide a request (guarded by expectedVersion and actionHash)',
        parameters: [idParam('approval request')],
        requestBody: { required: true, content: { 'application/json': { schema: ref('Decision') } } },
        responses: {
          200: json(
            {
              type: 'object',
              properties: {
                request: ref('RequestSummary'),
                outcome: { enum: ['authorized', 'rejected', 'responded', 'pending', 'superseded'] },
                newRequestId: {
                  type: 'string',
                  description: 'When the edit became a new request (outcome superseded).',
                },
                plantedCheck: plantedCheckSchema,
              },
            },
            'The decision was recorded.',
          ),
          ...errors(400, 401, 403, 404, 409, 410, 413, 422, 429),
        },
      },
    },
    '/api/v1/approvals/{id}/story': {
      get: {
        summary: 'What was proposed, who decided, what ran',
        parameters: [idParam('approval request')],
        responses: { 200: json({ type: 'object' }, 'The story.'), ...errors(401, 403, 404) },
      },
    },
  };
}

/** Agent runs: starting, reading, aborting a thread and its audit trail. */
function threadPaths(): Json {
  return {
    '/api/v1/threads': {
      post: {
        summary: 'Start an agent run (operators; needs a threads adapter)',
        requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(startThreadBody) } } },
        responses: {
          202: json(
            { type: 'object', properties: { threadId: { type: 'string' }, status: { type: 'string' } } },
            'Started.',
          ),
          ...errors(400, 401, 403, 409, 413, 501),
        },
      },
    },
    '/api/v1/threads/{id}': {
      get: {
        summary:
          'A thread; personal data in its messages is masked unless an operator asks for raw=1 (audited as raw_viewed)',
        parameters: [idParam('thread'), ...queryParams(threadQuery)],
        responses: { 200: json({ type: 'object' }, 'The thread.'), ...errors(400, 401, 403, 404) },
      },
    },
    '/api/v1/threads/{id}/abort': {
      post: {
        summary: 'Abort a thread (operators; needs a threads adapter)',
        parameters: [idParam('thread')],
        responses: { 200: json({ type: 'object' }, 'Abort requested.'), ...errors(401, 403, 404, 501) },
      },
    },
    '/api/v1/threads/{id}/audit': {
      get: {
        summary: 'Audit events of a thread',
        parameters: [idParam('thread'), ...queryParams(auditQuery)],
        responses: {
          200: json(
            {
              type: 'object',
              properties: {
                threadId: { type: 'string' },
                events: { type: 'array', items: { type: 'object' } },
                nextAfterSeq: { type: ['integer', 'null'] },
              },
            },
            'The events.',
          ),
          ...errors(400, 401, 403, 404),
        },
      },
    },
  };
}

/** Operations: audit verification, live events, health, metrics and this document. */
function operationPaths(): Json {
  return {
    '/api/v1/audit/verify': {
      get: {
        summary: 'Verify the audit hash chain (operators)',
        responses: {
          200: json(
            {
              type: 'object',
              properties: { ok: { type: 'boolean' }, events: { type: 'integer' }, brokenAt: { type: 'object' } },
            },
            'The verification.',
          ),
          ...errors(401, 403),
        },
      },
    },
    '/api/v1/events': {
      get: {
        summary:
          'Live events (Server-Sent Events): ready, approval.created, approval.decided, approval.expired, claim.changed (who is looking at a request; claim null when given back), note.added (an internal note was added; read it from the notes route), thread.status, execution.finished. Events are not replayed: the server ends the stream when events of other processes may have been missed, and a client that reconnects reloads what it shows.',
        responses: {
          200: {
            description: 'An event stream with a heartbeat comment every 15 s.',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
          ...errors(401),
        },
      },
    },
    '/healthz': {
      get: { summary: 'The process is up', security: [], responses: { 200: json({ type: 'object' }, 'Up.') } },
    },
    '/readyz': {
      get: {
        summary: 'The store answers',
        security: [],
        responses: { 200: json({ type: 'object' }, 'Ready.'), ...errors(503) },
      },
    },
    '/metrics': {
      get: {
        summary: 'Prometheus metrics',
        security: [],
        responses: {
          200: { description: 'Exposition format.', content: { 'text/plain': { schema: { type: 'string' } } } },
        },
      },
    },
    '/openapi.json': {
      get: { summary: 'This document', security: [], responses: { 200: json({ type: 'object' }, 'OpenAPI 3.1.') } },
    },
  };
}

/** The shared error shape, the schemas the paths refer to and one response per documented error status. */
function components(): Json {
  return {
    securitySchemes: {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        description: 'A reviewer token (il_…). Browser sessions use the il_session cookie.',
      },
    },
    schemas: {
      Error: {
        type: 'object',
        required: ['error'],
        properties: {
          error: {
            type: 'object',
            required: ['code', 'message'],
            properties: {
              code: {
                type: 'string',
                description: `One of ${Object.keys(HTTP_STATUS).join(', ')}, or <kind>_not_found.`,
              },
              message: { type: 'string' },
              details: {
                type: 'object',
                properties: {
                  issues: {
                    type: 'array',
                    items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } },
                  },
                },
              },
            },
          },
        },
      },
      Decision: jsonSchema(decisionBody),
      RequestSummary: requestSummary,
      ReviewPacket: reviewPacket,
      QueueItem: queueItemSchema,
    },
    responses: Object.fromEntries(Object.entries(ERROR_TEXT).map(([s, text]) => [`E${s}`, json(ref('Error'), text)])),
  };
}

/** Build the document; `baseUrl` becomes its server entry. */
export function openApiDocument(opts: { baseUrl?: string; version?: string } = {}): Json {
  const auth = [{ bearer: [] }];
  return {
    openapi: '3.1.0',
    info: {
      title: 'Interlock API',
      version: opts.version ?? '0.1.0',
      description: 'Durable human approval for AI agents: the approval queue, decisions, live events, audit.',
    },
    ...(opts.baseUrl && { servers: [{ url: opts.baseUrl }] }),
    security: auth,
    paths: {
      ...queuePaths({ queryParams, plantedCheck: plantedCheckSchema }),
      ...requestPaths(),
      ...relatedPaths(),
      ...attentionPaths(),
      ...claimNotePaths(),
      ...threadPaths(),
      ...operationPaths(),
    },
    components: components(),
  };
}
