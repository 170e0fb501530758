import type { NoteRow, NoteStoreOps } from '../types.ts';
import { num, type OpShape, type SqlExecutor } from './executor.ts';

/** Reviewers' internal notes on requests (src/store/sql/notes.ts): written once, never changed. */
export function noteOps(db: SqlExecutor): NoteStoreOps {
  return {
    async insertNote(n) {
      await db.send(
        `INSERT INTO il_notes (id, request_id, author, author_name, text, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
        [n.id, n.requestId, n.author, n.authorName, n.text, n.createdAt],
      );
    },
    async listNotes(requestId) {
      const rows = await db.all(`SELECT * FROM il_notes WHERE request_id = $1 ORDER BY created_at, id LIMIT 500`, [
        requestId,
      ]);
      return rows.map((r): NoteRow => ({
        id: String(r.id),
        requestId: String(r.request_id),
        author: String(r.author),
        authorName: String(r.author_name),
        text: String(r.text),
        createdAt: num(r.created_at),
      }));
    },
  };
}

export const noteShapes: { [K in keyof ReturnType<typeof noteOps>]: OpShape } = {
  insertNote: 'write',
  listNotes: 'read',
};
