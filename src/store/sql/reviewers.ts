import type { ReviewerRow, ReviewerStoreOps } from '../types.ts';
import { fromJson, num, type Row, type SqlExecutor, type OpShape } from './executor.ts';

function toReviewer(r: Row): ReviewerRow {
  return {
    id: String(r.id),
    name: String(r.name),
    roles: fromJson(r.roles),
    tokenHash: String(r.token_hash),
    revoked: num(r.revoked) === 1,
    createdAt: num(r.created_at),
  };
}

/** Reviewers and the hashes of their tokens. */
export function reviewerOps(db: SqlExecutor): ReviewerStoreOps {
  return {
    async insertReviewer(r) {
      await db.send(
        `INSERT INTO il_reviewers (id, name, roles, token_hash, revoked, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
        [r.id, r.name, JSON.stringify(r.roles), r.tokenHash, r.revoked ? 1 : 0, r.createdAt],
      );
    },
    async getReviewerByTokenHash(tokenHash) {
      const rows = await db.all(`SELECT * FROM il_reviewers WHERE token_hash = $1`, [tokenHash]);
      return rows[0] ? toReviewer(rows[0]) : undefined;
    },
    async getReviewer(id) {
      const rows = await db.all(`SELECT * FROM il_reviewers WHERE id = $1`, [id]);
      return rows[0] ? toReviewer(rows[0]) : undefined;
    },
    async listReviewers() {
      return (await db.all(`SELECT * FROM il_reviewers ORDER BY created_at`)).map(toReviewer);
    },
    async revokeReviewer(id) {
      return (await db.run(`UPDATE il_reviewers SET revoked = 1 WHERE id = $1 AND revoked = 0`, [id])) === 1;
    },
    async linkIdentity(provider, externalId, reviewerId, now) {
      // One account, one reviewer: linking again moves it (an account handed to a colleague).
      await db.send(
        `INSERT INTO il_reviewer_identities (provider, external_id, reviewer_id, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (provider, external_id) DO UPDATE SET reviewer_id = excluded.reviewer_id, created_at = excluded.created_at`,
        [provider, externalId, reviewerId, now],
      );
    },
    async getReviewerByIdentity(provider, externalId) {
      const rows = await db.all(
        `SELECT r.* FROM il_reviewer_identities i JOIN il_reviewers r ON r.id = i.reviewer_id
         WHERE i.provider = $1 AND i.external_id = $2`,
        [provider, externalId],
      );
      return rows[0] ? toReviewer(rows[0]) : undefined;
    },
    async recordPostedMessage(requestId, provider, ref, version, final, now) {
      await db.send(
        `INSERT INTO il_posted_messages (request_id, provider, ref, created_at, version, final) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (request_id, provider, ref) DO UPDATE SET version = excluded.version, final = excluded.final`,
        [requestId, provider, ref, now, version, final ? 1 : 0],
      );
    },
    async listStalePostedMessages(provider, limit) {
      // Messages not showing their request's current version: decided (or voted on) in another process.
      const rows = await db.all(
        `SELECT DISTINCT p.request_id FROM il_posted_messages p JOIN il_requests r ON r.id = p.request_id
         WHERE p.provider = $1 AND p.final = 0 AND p.version <> r.version LIMIT $2`,
        [provider, limit],
      );
      return rows.map((r) => String(r.request_id));
    },
    async listPostedMessages(requestId, provider) {
      const rows = await db.all(
        `SELECT ref FROM il_posted_messages WHERE request_id = $1 AND provider = $2 ORDER BY created_at`,
        [requestId, provider],
      );
      return rows.map((r) => String(r.ref));
    },
  };
}

/**
 * How each operation runs outside a caller's transaction (see {@link OpShape}).
 * Kept next to the SQL it describes; the type makes a new operation without a shape a compile error.
 */
export const reviewerShapes: { [K in keyof ReturnType<typeof reviewerOps>]: OpShape } = {
  insertReviewer: 'write',
  getReviewerByTokenHash: 'read',
  getReviewer: 'read',
  listReviewers: 'read',
  revokeReviewer: 'write',
  linkIdentity: 'write',
  getReviewerByIdentity: 'read',
  recordPostedMessage: 'write',
  listStalePostedMessages: 'read',
  listPostedMessages: 'read',
};
