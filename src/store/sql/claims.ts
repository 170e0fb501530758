import type { ClaimRow, ClaimStoreOps } from '../types.ts';
import { num, placeholders, type OpShape, type Row, type SqlExecutor } from './executor.ts';

function toClaim(r: Row): ClaimRow {
  return {
    requestId: String(r.request_id),
    reviewer: String(r.reviewer),
    reviewerName: String(r.reviewer_name),
    since: num(r.since),
    expiresAt: num(r.expires_at),
    auto: num(r.auto) === 1,
  };
}

/**
 * Who is looking at a request (src/store/sql/claims.ts): one holder per request, until its expiry.
 * A claim is advisory, so readers only ever see live claims on pending requests; a decided request's
 * claim row is left to lapse and is cleared by a later claim.
 */
export function claimOps(db: SqlExecutor): ClaimStoreOps {
  return {
    async putClaim(c, takeOver) {
      // Lapsed claims have no holder: cleared here, so the table holds about as many rows as live claims.
      await db.run(`DELETE FROM il_claims WHERE expires_at <= $1 AND request_id <> $2`, [c.since, c.requestId]);
      // One statement decides under the row's lock: a free or lapsed claim, or the holder's own, is
      // (re)taken; someone else's only with `takeOver`. The holder renewing keeps `since`, and a claim
      // they made by hand stays one when their card re-opens (auto = 0).
      const [row] = await db.all(
        `INSERT INTO il_claims (request_id, reviewer, reviewer_name, since, expires_at, auto)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (request_id) DO UPDATE SET
           since = CASE WHEN il_claims.reviewer = excluded.reviewer AND il_claims.expires_at > $4
             THEN il_claims.since ELSE excluded.since END,
           auto = CASE WHEN il_claims.reviewer = excluded.reviewer AND il_claims.expires_at > $4 AND il_claims.auto = 0
             THEN 0 ELSE excluded.auto END,
           reviewer = excluded.reviewer, reviewer_name = excluded.reviewer_name, expires_at = excluded.expires_at
         WHERE il_claims.reviewer = excluded.reviewer OR il_claims.expires_at <= $4 OR $7 = 1
         RETURNING *`,
        [c.requestId, c.reviewer, c.reviewerName, c.since, c.expiresAt, c.auto ? 1 : 0, takeOver ? 1 : 0],
      );
      if (row) return { claimed: true, claim: toClaim(row) };
      const [held] = await db.all(`SELECT * FROM il_claims WHERE request_id = $1`, [c.requestId]);
      return { claimed: false, claim: toClaim(held!) };
    },
    async deleteClaim(requestId, reviewer) {
      return (await db.run(`DELETE FROM il_claims WHERE request_id = $1 AND reviewer = $2`, [requestId, reviewer])) > 0;
    },
    async getClaim(requestId, now) {
      const [row] = await db.all(
        `SELECT c.* FROM il_claims c JOIN il_requests r ON r.id = c.request_id
         WHERE c.request_id = $1 AND c.expires_at > $2 AND r.status = 'pending'`,
        [requestId, now],
      );
      return row ? toClaim(row) : undefined;
    },
    async listClaims(now, roles) {
      const byRole = roles ? ` AND r.role IN (${placeholders(roles.length, 2)})` : '';
      if (roles?.length === 0) return [];
      const rows = await db.all(
        `SELECT c.*, r.role FROM il_claims c JOIN il_requests r ON r.id = c.request_id
         WHERE c.expires_at > $1 AND r.status = 'pending'${byRole} ORDER BY c.since, c.request_id LIMIT 1000`,
        [now, ...(roles ?? [])],
      );
      return rows.map((r) => ({ ...toClaim(r), role: String(r.role) }));
    },
  };
}

export const claimShapes: { [K in keyof ReturnType<typeof claimOps>]: OpShape } = {
  putClaim: 'multi',
  deleteClaim: 'write',
  getClaim: 'read',
  listClaims: 'read',
};
