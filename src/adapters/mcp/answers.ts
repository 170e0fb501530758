import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { peopleOfRole, type ApprovalRequest } from '../../core/index.ts';

/** The `_meta` key of the gateway's own answers: a machine-readable status beside the text. */
export const STATUS_META = 'interlock/status';

/** A text answer. */
export const text = (s: string, isError = false): CallToolResult => ({ content: [{ type: 'text', text: s }], isError });

/**
 * The answer to a call whose request nobody decided yet: it has not run, and how to get its outcome.
 *
 * The status is in `_meta["interlock/status"]` for every tool. A tool without an `outputSchema` also
 * gets it as `structuredContent`. A tool with one gets `isError: true` and no `structuredContent`:
 * nothing the tool defines was produced, and a validating client (the SDK's `callTool`) accepts an
 * error result without structured content, while it refuses any other shape.
 */
export function pendingAnswer(req: ApprovalRequest, outputSchema: boolean): CallToolResult {
  const status = {
    status: 'awaiting_approval',
    requestId: req.id,
    role: req.role,
    expiresAt: new Date(req.expiresAt).toISOString(),
  };
  return {
    content: [
      {
        type: 'text',
        text: `This action awaits approval by ${peopleOfRole(req.role ?? 'reviewer', req.approvalsRequired)} (role "${req.role}"; request ${req.id}: ${req.reason}); it has not run. Call the tool again with the same arguments after the decision to get its outcome (the request expires ${status.expiresAt}).`,
      },
    ],
    ...(outputSchema ? {} : { structuredContent: status }),
    isError: outputSchema,
    _meta: { [STATUS_META]: status },
  };
}

/**
 * The answer to a call that did not run (rejected, expired, cancelled) or that a reviewer answered
 * instead (`respond`: not an error). For a tool with an `outputSchema` both are error results, so a
 * validating client delivers the reviewer's words instead of refusing the answer.
 */
export function notRunAnswer(message: string, answered: boolean, outputSchema: boolean): CallToolResult {
  return {
    ...text(message, outputSchema || !answered),
    _meta: { [STATUS_META]: { status: answered ? 'answered_by_reviewer' : 'not_run' } },
  };
}
