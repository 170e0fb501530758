import { MIGRATIONS } from './schema.ts';
import type { Dialect, SqlExecutor } from './executor.ts';
import { num } from './executor.ts';
import { SchemaVersionError } from '../../core/errors.ts';

/**
 * Apply pending migrations, each in its own transaction. `inTx` runs a
 * function in a transaction that holds the backend's migration lock, so two
 * processes starting at once apply each migration exactly once.
 */
export async function applyMigrations(
  inTx: <T>(fn: (db: SqlExecutor) => Promise<T>) => Promise<T>,
  dialect: Pick<Dialect, 'name'>,
): Promise<number[]> {
  const applied: number[] = [];
  // A database a newer build migrated may hold tables or columns this code would misread or
  // overwrite; refuse before touching anything.
  await inTx(async (db) => {
    await db.run(
      `CREATE TABLE IF NOT EXISTS il_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`,
    );
    const found = await schemaVersion(db);
    if (found > LATEST_MIGRATION)
      throw new SchemaVersionError(
        'database',
        found,
        MIGRATIONS.map((m) => m.id),
        'migrated by a newer Interlock',
      );
  });
  for (const m of MIGRATIONS) {
    const did = await inTx(async (db) => {
      await db.run(
        `CREATE TABLE IF NOT EXISTS il_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`,
      );
      const done = await db.all(`SELECT id FROM il_migrations WHERE id = $1`, [m.id]);
      if (done.length > 0) return false;
      // Insert the row first: a concurrent migrator without the lock would fail here, not half-way.
      await db.run(`INSERT INTO il_migrations (id, name, applied_at) VALUES ($1, $2, $3)`, [m.id, m.name, Date.now()]);
      for (const s of m.statements) {
        const sql = typeof s === 'string' ? s : s[dialect.name];
        if (sql) await db.run(sql);
      }
      return true;
    });
    if (did) applied.push(m.id);
  }
  return applied;
}

/** Highest migration this build knows. */
export const LATEST_MIGRATION = Math.max(...MIGRATIONS.map((m) => m.id));

/** The highest migration applied to a database (0 when none). */
export async function schemaVersion(db: SqlExecutor): Promise<number> {
  const rows = await db.all(`SELECT MAX(id) AS v FROM il_migrations`);
  return num(rows[0]?.v ?? 0);
}
