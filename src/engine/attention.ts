import { redactText, type ApprovalRequest } from '../core/index.ts';
import type { EngineContext } from './context.ts';

/** An approved action that failed when it ran: what a "needs attention" list shows of it. */
export interface FailedApproval {
  request: ApprovalRequest;
  /** The tool's error, masked like evidence (card numbers, e-mail addresses, phone numbers). */
  error: string;
  /** Epoch ms of the failure. */
  failedAt: number;
  /** Who authorized it (approvals and edits), oldest first; `name` falls back to the id. */
  approvers: Array<{ id: string; name: string }>;
}

/** Whose list: one reviewer's (the requests they decided on), or everyone's (`all`, for operators). */
export type AttentionViewer = { reviewer: string } | { all: true };

/**
 * Approved actions that failed, for the people who should do something about them: the reviewers
 * who approved (or otherwise decided on) them, and operators. Reads only; the failure itself and the
 * notice to the approvers are written when the execution is recorded (src/engine/approval-failed.ts).
 */
export interface AttentionOps {
  /** Newest failure first, `limit` at a time (default 50, at most 200); pass `nextCursor` on for the next page. */
  list(
    viewer: AttentionViewer,
    page?: { limit?: number; cursor?: string },
  ): Promise<{ items: FailedApproval[]; nextCursor: string | null }>;
  /** How many there are in all, without reading them. */
  count(viewer: AttentionViewer): Promise<number>;
  /** The chat accounts (`slack` user ids) linked to these reviewers, to write to them directly. */
  linkedAccounts(
    provider: string,
    reviewerIds: readonly string[],
  ): Promise<Array<{ reviewerId: string; externalId: string }>>;
}

const scope = (v: AttentionViewer) => ('reviewer' in v ? { reviewer: v.reviewer } : {});

/** The engine's "needs attention" reads over `ctx`. */
export function attentionOps(ctx: EngineContext): AttentionOps {
  return {
    async list(viewer, page = {}) {
      const r = await ctx.store.listFailedApprovals({
        ...scope(viewer),
        ...(page.limit === undefined ? {} : { limit: page.limit }),
        ...(page.cursor === undefined ? {} : { cursor: page.cursor }),
      });
      return {
        items: r.items.map((f) => ({
          request: f.request,
          error: f.error ? redactText(f.error) : 'the tool failed without a message',
          failedAt: f.failedAt,
          approvers: f.approvers.map((a) => ({ id: a.id, name: a.name ?? a.id })),
        })),
        nextCursor: r.nextCursor,
      };
    },
    count: (viewer) => ctx.store.countFailedApprovals(scope(viewer)),
    linkedAccounts: (provider, ids) => ctx.store.listLinkedIdentities(provider, ids),
  };
}
