import type { SubjectStoreOps } from '../types.ts';
import type { OpShape, SqlExecutor } from './executor.ts';
import { toRequest } from './requests.ts';

/** `%` and `_` are LIKE's wildcards, `\\` its escape: matched literally in a subject value. */
const literal = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Requests by subject: a LIKE over the arguments' JSON text finds the candidates (the same SQL on
 * both backends; SQLite's LIKE ignores ASCII case), and each candidate's arguments are then compared
 * exactly, so a value that only looks alike, or sits in a nested object, never counts.
 */
export function subjectOps(db: SqlExecutor): SubjectStoreOps {
  return {
    async listRequestsOnSubject(name, value, since, limit) {
      const pattern = `%${literal(JSON.stringify(name))}:${literal(JSON.stringify(value))}%`;
      const rows = await db.all(
        `SELECT * FROM il_requests WHERE args LIKE $1 ESCAPE '\\'
           AND (status IN ('pending', 'authorized', 'executing') OR updated_at >= $2)
         ORDER BY created_at DESC, id DESC LIMIT $3`,
        [pattern, since, limit],
      );
      return rows.map(toRequest).filter((r) => r.args[name] === value);
    },
  };
}

export const subjectShapes: { [K in keyof ReturnType<typeof subjectOps>]: OpShape } = {
  listRequestsOnSubject: 'read',
};
