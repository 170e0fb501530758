import { z } from 'zod';
// Straight from the modules, not the core index: the browser client's types import this file too.
import { DECISION_TYPES, MAX_DECISION_MESSAGE, REQUEST_STATUSES } from '../core/approval.ts';
import { TIERS, TIMEOUT_DECISIONS } from '../core/tiers.ts';

/**
 * Inputs of the API, as zod schemas: validated in the routes and turned into
 * JSON Schema for /openapi.json, so the two never disagree.
 */

/** Body of POST /api/v1/approvals/:id/decision. */
export const decisionBody = z
  .strictObject({
    type: z.enum(DECISION_TYPES).describe('approve | edit | reject | respond'),
    expectedVersion: z.number().int().positive().describe('The request version you reviewed (from the review packet).'),
    actionHash: z.string().min(1).max(256).describe('The action hash you reviewed (from the review packet).'),
    args: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Edit only: the full new arguments; checked against the tool schema and the policy.'),
    message: z
      .string()
      .max(MAX_DECISION_MESSAGE)
      .optional()
      .describe('Reject: a message to the agent. Respond: the tool result the agent receives.'),
    trust: z.boolean().optional().describe('Approve only: trust this rule for the rest of the thread.'),
  })
  .superRefine((d, ctx) => {
    if (d.type === 'edit' && d.args === undefined)
      ctx.addIssue({ code: 'custom', path: ['args'], message: 'required for edit: the full new arguments' });
    if (d.type !== 'edit' && d.args !== undefined)
      ctx.addIssue({ code: 'custom', path: ['args'], message: 'only an edit takes args' });
    if (d.type === 'respond' && d.message === undefined)
      ctx.addIssue({ code: 'custom', path: ['message'], message: 'required for respond: the text the agent receives' });
    if (d.trust === true && d.type !== 'approve')
      ctx.addIssue({ code: 'custom', path: ['trust'], message: 'only an approve can trust' });
  });
export type DecisionBody = z.infer<typeof decisionBody>;

/** Filters of GET /api/v1/approvals and of its count (`arg.<name>` filters are read apart: see {@link argFilters}). */
export const countQuery = z.strictObject({
  status: z.enum(REQUEST_STATUSES).optional(),
  role: z.string().min(1).max(200).optional(),
  tool: z.string().min(1).max(200).optional(),
  tier: z.enum(TIERS).optional(),
  threadId: z.string().min(1).max(200).optional(),
  q: z
    .string()
    .trim()
    .min(1, 'search text must not be blank')
    .max(200)
    .optional()
    .describe('Free text: a case-insensitive substring of the tool, the reason or the arguments (their JSON text)'),
  ids: z
    .string()
    .regex(/^[^,\s]{1,200}(,[^,\s]{1,200}){0,99}$/, 'a comma-separated list of 1 to 100 request ids')
    .optional()
    .describe('Only these requests (comma-separated ids, at most 100), whatever their status unless status is given'),
});

/** Query of GET /api/v1/approvals. */
export const listQuery = countQuery.extend({
  limit: z.coerce.number().int().min(1).max(500).optional(),
  cursor: z.string().min(1).max(1000).optional(),
  order: z
    .enum(['newest', 'expiry', 'amount'])
    .optional()
    .describe('Newest first (default), soonest expiry first, or the numeric amount argument largest first'),
});

/**
 * `arg.<name>=<value>` filters of the queue listing and count: the top-level argument `name`
 * equals `value` (compared as text, case-insensitively). Names are plain identifiers; at most 5.
 */
export const argFilters = z
  .record(
    z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,99}$/, 'argument names are letters, digits and _'),
    z.string().min(1, 'give the value to match').max(200),
  )
  .refine((a) => Object.keys(a).length <= 5, 'at most 5 argument filters');

/** Query of GET /api/v1/planted (operators). */
export const plantedQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).optional(),
  cursor: z.string().min(1).max(1000).optional(),
});

/** Body of POST /api/v1/threads. */
export const startThreadBody = z.strictObject({
  agent: z.string().min(1).max(200).describe('Name of the agent to run.'),
  input: z.unknown().describe('What the agent starts from (a user message, or what the agent accepts).'),
  threadId: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('Id for the new thread (default: a fresh one). An id already taken is refused with 409 thread_exists.'),
});

/** Query of GET /api/v1/threads/:id/audit. */
export const auditQuery = z.strictObject({
  afterSeq: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Events after this sequence number (nextAfterSeq of the previous page).'),
  limit: z.coerce.number().int().min(1).max(5000).optional(),
});

/** Query of GET /threads/:id: `raw=1` (operators only, audited) shows personal data unmasked. */
export const threadQuery = z.strictObject({
  raw: z
    .enum(['0', '1'], { message: 'raw must be 1 (show personal data unmasked; operators only, audited) or 0' })
    .optional(),
});

/** A decision as the API shows it (`at` as an ISO time). */
export const resolutionView = z.object({
  type: z.string().describe('approve | edit | reject | respond | timeout'),
  by: z.string(),
  at: z.iso.datetime(),
  message: z.string().optional(),
  originalArgs: z.record(z.string(), z.unknown()).optional(),
  trust: z.boolean().optional(),
  applied: z.string().optional(),
});

/**
 * An approval request as the API returns it (the queue, a decision's result, a story): the one
 * declaration of its shape. The server's view is typed by it, the OpenAPI document is generated
 * from it, and the browser client's type derives from it.
 */
export const requestSummarySchema = z.object({
  id: z.string(),
  threadId: z.string(),
  toolCallId: z.string().nullable().describe("The framework's tool-call id of the call (null if it had none)."),
  tool: z.string(),
  args: z.record(z.string(), z.unknown()),
  reason: z.string(),
  ruleId: z.string(),
  tier: z.enum(TIERS),
  requiredRole: z.string(),
  approvalsRequired: z.number().int(),
  approvalsReceived: z.number().int(),
  status: z.enum(REQUEST_STATUSES),
  version: z.number().int().describe('Send back as expectedVersion.'),
  actionHash: z.string().describe('Send back as actionHash.'),
  proposer: z.string(),
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  resolvedAt: z.iso.datetime().nullable(),
  onTimeout: z.enum(TIMEOUT_DECISIONS),
  resolution: resolutionView.nullable(),
  parentId: z.string().nullable(),
  supersededBy: z.string().nullable(),
  agentPath: z
    .array(z.string())
    .nullable()
    .describe('Inside a tree of agents: the agents (or graph and node) from the root down to the one that asked.'),
  rejectReasons: z
    .object({ required: z.boolean(), choices: z.array(z.string()) })
    .nullable()
    .describe(
      "Its rule's reject reasons: whether a reject must carry a message (else 422 reason_required) and the canned choices to offer; null: optional, none offered.",
    ),
});
export type RequestSummary = z.infer<typeof requestSummarySchema>;
