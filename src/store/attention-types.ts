import type { ApprovalRequest } from '../core/index.ts';

/** A request whose authorized action failed when it ran, with the failure (src/store/sql/attention.ts). */
export interface FailedApprovalRow {
  request: ApprovalRequest;
  /** The failed execution's error as recorded (unmasked: mask before showing it). */
  error: string | null;
  /** Epoch ms of the failure. */
  failedAt: number;
  /** The reviewers whose decision authorized it (approvals and edits), oldest first, with their names when known. */
  approvers: Array<{ id: string; name: string | null }>;
}

/** Which failed approvals to read: all of them, or those one reviewer decided on. */
export interface FailedApprovalQuery {
  /** Only requests this reviewer voted on (approved, edited, or any other decision recorded). */
  reviewer?: string;
  /** Page size (default 50, at most 200). */
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
}

/** Requests whose approved action failed: the "needs attention" list (src/store/sql/attention.ts). */
export interface AttentionStoreOps {
  /** Failed approvals, newest failure first, paged by a keyset cursor. */
  listFailedApprovals(q: FailedApprovalQuery): Promise<{ items: FailedApprovalRow[]; nextCursor: string | null }>;
  /** How many {@link listFailedApprovals} would list in all (its page and cursor ignored): one COUNT. */
  countFailedApprovals(q: Pick<FailedApprovalQuery, 'reviewer'>): Promise<number>;
  /** The accounts in a chat tool (`slack`) linked to these reviewers: where to write to them directly. */
  listLinkedIdentities(
    provider: string,
    reviewerIds: readonly string[],
  ): Promise<Array<{ reviewerId: string; externalId: string }>>;
}
