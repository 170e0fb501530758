import { ValidationError } from '../../core/index.ts';
import type { AttentionStoreOps, FailedApprovalRow } from '../attention-types.ts';
import { num, placeholders, strOrNull, type OpShape, type Row, type SqlExecutor } from './executor.ts';
import { toRequest } from './requests.ts';

/**
 * Requests whose approved action failed when it ran ("needs attention"). A failed request is final,
 * so its `updated_at` is when it failed: the list is ordered by it. The error is the failed ledger
 * row's; the approvers are the votes that authorized it (approve, edit). No index holds failed
 * requests apart (none is added, so no migration): the list and its count scan the requests, which
 * is fine for the tens of thousands a service holds.
 */

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;

function encodeCursor(at: number, id: string): string {
  return Buffer.from(`failed:${at}:${id}`).toString('base64url');
}

function decodeCursor(c: string): [number, string] {
  const m = /^failed:(\d+):(.+)$/.exec(Buffer.from(c, 'base64url').toString());
  if (!m || !Number.isSafeInteger(Number(m[1])))
    throw new ValidationError(
      'The cursor is not one this API returned; pass nextCursor from the previous page unchanged.',
      [{ path: 'cursor', message: 'malformed' }],
    );
  return [Number(m[1]), m[2]!];
}

/** The WHERE of the list and the count: failed requests, those `reviewer` voted on when given. */
function filter(reviewer: string | undefined, params: unknown[]): string {
  if (reviewer === undefined) return `r.status = 'failed'`;
  params.push(reviewer);
  return `r.status = 'failed' AND EXISTS (SELECT 1 FROM il_votes v WHERE v.request_id = r.id AND v.reviewer = $${params.length})`;
}

async function approversOf(
  db: SqlExecutor,
  ids: readonly string[],
): Promise<Map<string, FailedApprovalRow['approvers']>> {
  const out = new Map<string, FailedApprovalRow['approvers']>();
  if (ids.length === 0) return out;
  const rows = await db.all(
    `SELECT v.request_id, v.reviewer, rv.name FROM il_votes v LEFT JOIN il_reviewers rv ON rv.id = v.reviewer
     WHERE v.request_id IN (${placeholders(ids.length, 1)}) AND v.type IN ('approve', 'edit')
     ORDER BY v.created_at, v.reviewer`,
    ids,
  );
  for (const r of rows) {
    const list = out.get(String(r.request_id)) ?? [];
    list.push({ id: String(r.reviewer), name: strOrNull(r.name) });
    out.set(String(r.request_id), list);
  }
  return out;
}

/** The store's reads of failed approvals, over one executor. */
export function attentionOps(db: SqlExecutor): AttentionStoreOps {
  return {
    async listFailedApprovals(q) {
      const limit = Math.min(Math.max(1, Math.trunc(q.limit ?? DEFAULT_LIMIT)), MAX_LIMIT);
      const params: unknown[] = [];
      let cond = filter(q.reviewer, params);
      if (q.cursor) {
        const [at, id] = decodeCursor(q.cursor);
        params.push(at, id);
        cond += ` AND (r.updated_at < $${params.length - 1} OR (r.updated_at = $${params.length - 1} AND r.id < $${params.length}))`;
      }
      params.push(limit + 1);
      const rows = await db.all(
        `SELECT r.*, (SELECT e.error FROM il_executions e WHERE e.request_id = r.id AND e.status = 'failed'
                        ORDER BY e.updated_at DESC LIMIT 1) AS il_failed_error
         FROM il_requests r WHERE ${cond} ORDER BY r.updated_at DESC, r.id DESC LIMIT $${params.length}`,
        params,
      );
      const page = rows.slice(0, limit);
      const approvers = await approversOf(
        db,
        page.map((r: Row) => String(r.id)),
      );
      const items = page.map((r: Row): FailedApprovalRow => {
        const request = toRequest(r);
        return {
          request,
          error: strOrNull(r.il_failed_error),
          failedAt: request.updatedAt,
          approvers: approvers.get(request.id) ?? [],
        };
      });
      const last = items.at(-1);
      return {
        items,
        nextCursor: rows.length > limit && last ? encodeCursor(last.failedAt, last.request.id) : null,
      };
    },
    async countFailedApprovals(q) {
      const params: unknown[] = [];
      const rows = await db.all(`SELECT COUNT(*) AS n FROM il_requests r WHERE ${filter(q.reviewer, params)}`, params);
      return num(rows[0]?.n ?? 0);
    },
    async listLinkedIdentities(provider, reviewerIds) {
      if (reviewerIds.length === 0) return [];
      const rows = await db.all(
        `SELECT reviewer_id, external_id FROM il_reviewer_identities
         WHERE provider = $1 AND reviewer_id IN (${placeholders(reviewerIds.length, 2)}) ORDER BY created_at`,
        [provider, ...reviewerIds],
      );
      return rows.map((r) => ({ reviewerId: String(r.reviewer_id), externalId: String(r.external_id) }));
    },
  };
}

export const attentionShapes: { [K in keyof AttentionStoreOps]: OpShape } = {
  // Two statements (the page, then its approvers' votes): read in one transaction, so they agree.
  listFailedApprovals: 'multi',
  countFailedApprovals: 'read',
  listLinkedIdentities: 'read',
};
