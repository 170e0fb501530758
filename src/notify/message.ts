import type { ApprovalRequest } from '../core/index.ts';
import type { JobRow } from '../store/types.ts';

/** A reviewer must decide: sent when a request is opened. */
export interface ApprovalRequestedMessage {
  kind: 'approval_requested';
  /** The approval request id. */
  id: string;
  threadId: string;
  tool: string;
  /** Arguments proposed by the agent: untrusted, escape before rendering. */
  args: Record<string, unknown>;
  /** Why the policy paused (from the rule). */
  reason: string;
  /** Role that may decide. */
  role: string;
  approvalsRequired: number;
  /** Epoch ms after which the request's timeout default applies. */
  expiresAt: number;
  /** Page where a reviewer decides: `${baseUrl}/approvals/${id}`. */
  reviewUrl: string;
}

/**
 * For information only: a `notify`-tier action already ran. Nothing to decide;
 * the fields the engine does not record for such actions are null.
 */
export interface FyiMessage {
  kind: 'fyi';
  /** The approval request id when the action had one, else the delivery (job) id. */
  id: string;
  threadId: string | null;
  tool: string;
  /** Arguments the action ran with: untrusted, escape before rendering. */
  args: Record<string, unknown>;
  reason: string | null;
  role: string;
  approvalsRequired: null;
  expiresAt: null;
  /** Set when the action belongs to an approval request. */
  reviewUrl: string | null;
}

/**
 * Told to the reviewers who approved an action that then failed when it ran: their approval did
 * not happen. Sent to the approvers (a Slack app writes to each linked one directly) and to the
 * request's role where they cannot be reached so (see docs/notifications.md).
 */
export interface ApprovalFailedMessage {
  kind: 'approval_execution_failed';
  /** The approval request id. */
  id: string;
  threadId: string;
  tool: string;
  /** Arguments the action ran with: untrusted, escape before rendering. */
  args: Record<string, unknown>;
  /** Why the policy paused it (from the rule). */
  reason: string;
  /** The request's role. */
  role: string;
  /** The tool's error: masked (card numbers, e-mail addresses, phone numbers) and cut; untrusted text. */
  error: string;
  /** Who approved it, oldest first. */
  approvers: Array<{ id: string; name: string }>;
  /** Epoch ms of the failure. */
  failedAt: number;
  approvalsRequired: null;
  expiresAt: null;
  /** The request's card, which shows the failure. */
  reviewUrl: string;
  /** The thread's timeline. */
  threadUrl: string;
}

/**
 * What channels render. It carries only trusted fields, the proposed
 * arguments and, for a failure, the tool's masked error; evidence (customer text, model summaries)
 * is never included — reviewers read it on the review page, where it is rendered as text.
 */
export type NotificationMessage = ApprovalRequestedMessage | FyiMessage | ApprovalFailedMessage;

/**
 * The review page of a request.
 * @example
 * reviewUrl('https://interlock.example.com/', 'apr_1') // 'https://interlock.example.com/approvals/apr_1'
 */
export function reviewUrl(baseUrl: string, requestId: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/approvals/${encodeURIComponent(requestId)}`;
}

/** The message announcing a pending request to the reviewers of `role` (default: the request's). */
export function approvalRequestedMessage(
  req: ApprovalRequest,
  baseUrl: string,
  role: string = req.role,
): ApprovalRequestedMessage {
  return {
    kind: 'approval_requested',
    id: req.id,
    threadId: req.threadId,
    tool: req.tool,
    args: req.args,
    reason: req.reason,
    role,
    approvalsRequired: req.approvalsRequired,
    expiresAt: req.expiresAt,
    reviewUrl: reviewUrl(baseUrl, req.id),
  };
}

/** The message of an FYI job (payload `{ role, fyi: true, tool, args, reason? }`). */
export function fyiMessage(
  job: Pick<JobRow, 'id' | 'threadId' | 'requestId' | 'payload'>,
  baseUrl: string,
): FyiMessage {
  const p = job.payload;
  return {
    kind: 'fyi',
    id: job.requestId ?? job.id,
    threadId: job.threadId,
    tool: typeof p.tool === 'string' ? p.tool : 'unknown tool',
    args: isRecord(p.args) ? p.args : {},
    reason: typeof p.reason === 'string' ? p.reason : null,
    role: typeof p.role === 'string' ? p.role : '',
    approvalsRequired: null,
    expiresAt: null,
    reviewUrl: job.requestId ? reviewUrl(baseUrl, job.requestId) : null,
  };
}

/** The timeline page of a thread. */
export function threadUrl(baseUrl: string, threadId: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/threads/${encodeURIComponent(threadId)}`;
}

/**
 * The message of an approved action's failure (job payload `{ approvalFailed: true, role, tool, error,
 * approvers, failedAt }`), with the request's arguments and the approvers' names.
 */
export function approvalFailedMessage(
  job: Pick<JobRow, 'payload'>,
  req: ApprovalRequest,
  names: ReadonlyMap<string, string>,
  baseUrl: string,
): ApprovalFailedMessage {
  const p = job.payload;
  const ids = Array.isArray(p.approvers) ? p.approvers.filter((a): a is string => typeof a === 'string') : [];
  return {
    kind: 'approval_execution_failed',
    id: req.id,
    threadId: req.threadId,
    tool: typeof p.tool === 'string' ? p.tool : req.tool,
    args: req.args,
    reason: req.reason,
    role: typeof p.role === 'string' ? p.role : req.role,
    error: typeof p.error === 'string' ? p.error : 'the tool failed without a message',
    approvers: ids.map((id) => ({ id, name: names.get(id) ?? id })),
    failedAt: typeof p.failedAt === 'number' ? p.failedAt : req.updatedAt,
    approvalsRequired: null,
    expiresAt: null,
    reviewUrl: reviewUrl(baseUrl, req.id),
    threadUrl: threadUrl(baseUrl, req.threadId),
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
