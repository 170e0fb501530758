import type { SessionRow, SessionStoreOps } from '../types.ts';
import { num, type Row, type SqlExecutor, type OpShape } from './executor.ts';

function toSession(r: Row): SessionRow {
  return {
    idHash: String(r.id_hash),
    reviewerId: String(r.reviewer_id),
    createdAt: num(r.created_at),
    expiresAt: num(r.expires_at),
  };
}

/** Browser sessions of the web UI, by the hash of their cookie value. */
export function sessionOps(db: SqlExecutor): SessionStoreOps {
  return {
    async insertSession(s) {
      await db.send(`INSERT INTO il_sessions (id_hash, reviewer_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`, [
        s.idHash,
        s.reviewerId,
        s.createdAt,
        s.expiresAt,
      ]);
    },
    async getSession(idHash) {
      const rows = await db.all(`SELECT * FROM il_sessions WHERE id_hash = $1`, [idHash]);
      return rows[0] ? toSession(rows[0]) : undefined;
    },
    async deleteSession(idHash) {
      return (await db.run(`DELETE FROM il_sessions WHERE id_hash = $1`, [idHash])) === 1;
    },
    async deleteExpiredSessions(now) {
      return db.run(`DELETE FROM il_sessions WHERE expires_at <= $1`, [now]);
    },
  };
}

/**
 * How each operation runs outside a caller's transaction (see {@link OpShape}).
 * Kept next to the SQL it describes; the type makes a new operation without a shape a compile error.
 */
export const sessionShapes: { [K in keyof ReturnType<typeof sessionOps>]: OpShape } = {
  insertSession: 'write',
  getSession: 'read',
  deleteSession: 'write',
  deleteExpiredSessions: 'write',
};
