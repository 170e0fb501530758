import { redactText, type ApprovalRequest } from '../core/index.ts';
import type { StoreTx } from '../store/types.ts';

/**
 * Telling the people who approved an action that it failed when it ran. Their approval did not
 * happen: the refund was not made, the e-mail not sent. Without a word they would believe it did
 * (issue 34). The notice is an outbox job written in the outcome's transaction, so it exists
 * exactly when the failure does; the notifier delivers it like any other.
 */

/** Marks a `notify` job's payload as an approved action's failure (beside `fyi`). */
export const APPROVAL_FAILED = 'approvalFailed';

/** The longest error text a notice carries; the review card shows the whole (masked) error. */
export const NOTICE_ERROR_MAX = 500;

/** What a failure notice job carries (its `payload`). */
export interface ApprovalFailedPayload {
  approvalFailed: true;
  /** The request's role: where the notice goes when an approver cannot be reached directly. */
  role: string;
  tool: string;
  /** The tool's error, masked like evidence (card numbers, e-mail addresses, phone numbers) and cut. */
  error: string;
  /** Reviewer ids of the people whose approval authorized the action, in the order they approved. */
  approvers: string[];
  /** Epoch ms of the failure. */
  failedAt: number;
}

/**
 * The reviewers whose decision authorized `req`: its quorum's approvals, and the reviewer who
 * authorized it by an edit. A timeout default that approved has no approver: nobody is told.
 */
export async function approversOf(tx: Pick<StoreTx, 'listVoters'>, req: ApprovalRequest): Promise<string[]> {
  const ids = await tx.listVoters(req.id);
  const r = req.resolution;
  if (r && (r.type === 'approve' || r.type === 'edit') && !ids.includes(r.by)) ids.push(r.by);
  return ids;
}

/** The error as a notice may carry it: masked, on one line of at most {@link NOTICE_ERROR_MAX} characters. */
export function noticeError(error: string): string {
  const text = redactText(error).replace(/\s+/g, ' ').trim() || 'the tool failed without a message';
  return text.length <= NOTICE_ERROR_MAX ? text : `${text.slice(0, NOTICE_ERROR_MAX - 1)}…`;
}

/**
 * In the transaction recording a request's failed execution: enqueue the notice to its approvers
 * (none when nobody approved it). Planted checks never execute, so never get here.
 */
export async function enqueueApprovalFailed(
  tx: StoreTx,
  req: ApprovalRequest,
  error: string,
  now: number,
): Promise<void> {
  const approvers = await approversOf(tx, req);
  if (approvers.length === 0) return;
  const payload: ApprovalFailedPayload = {
    approvalFailed: true,
    role: req.role,
    tool: req.tool,
    error: noticeError(error),
    approvers,
    failedAt: now,
  };
  await tx.enqueueJob({
    // One failure per request (failed is final): the id cannot repeat.
    id: `job_${req.id}_failed`,
    kind: 'notify',
    threadId: req.threadId,
    requestId: req.id,
    payload: { ...payload },
    runAt: now,
    createdAt: now,
  });
}
