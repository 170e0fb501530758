import { z } from 'zod';
import { DECISION_TYPES, REQUEST_STATUSES } from '../core/index.ts';

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
      .max(10_000)
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

/** Query of GET /api/v1/approvals. */
export const listQuery = z.strictObject({
  status: z.enum(REQUEST_STATUSES).optional(),
  role: z.string().min(1).max(200).optional(),
  tool: z.string().min(1).max(200).optional(),
  threadId: z.string().min(1).max(200).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
  cursor: z.string().min(1).max(1000).optional(),
  order: z.enum(['newest', 'expiry']).optional(),
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
