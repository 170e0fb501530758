/**
 * What an application writes itself when it uses a framework's own approval without Interlock: the
 * thread's messages (AI SDK) or items (OpenAI Agents SDK), and the paused run's state, in a small table
 * of the same database Interlock would use — node:sqlite (WAL, the same `synchronous` as Interlock's
 * store) or pg. The suite "Cost of oversight" measures the frameworks with this as their persistence.
 */
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { BENCH_DATABASE_URL, type Scratch } from './backends.ts';

/** A thread's history and its paused run, as the application keeps them. */
export interface AppStore {
  /** The thread's messages, oldest first. */
  load(threadId: string): Promise<unknown[]>;
  /** Append `items` after the first `from` messages, and set (or clear, with null) the paused run; one transaction. */
  save(threadId: string, from: number, items: readonly unknown[], paused?: string | null): Promise<void>;
  /** The paused run's serialized state, if any. */
  paused(threadId: string): Promise<string | undefined>;
  close(): Promise<void>;
  /** Where it lives, for the report. */
  readonly durability: string;
  /** Transactions `save` committed so far. */
  commits(): number;
}

const TABLES = [
  'CREATE TABLE app_messages (thread_id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (thread_id, seq))',
  'CREATE TABLE app_paused (thread_id TEXT PRIMARY KEY, state TEXT NOT NULL)',
];

/** The application's tables in a new SQLite file with WAL and `synchronous=FULL` (Interlock's default). */
export function sqliteAppStore(scratch: Scratch, name: string): AppStore {
  const db = new DatabaseSync(scratch.file(name));
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;');
  for (const t of TABLES) db.exec(t);
  const select = db.prepare('SELECT body FROM app_messages WHERE thread_id = ? ORDER BY seq');
  const insert = db.prepare('INSERT INTO app_messages (thread_id, seq, body) VALUES (?, ?, ?)');
  const setPaused = db.prepare(
    'INSERT INTO app_paused (thread_id, state) VALUES (?, ?) ON CONFLICT (thread_id) DO UPDATE SET state = excluded.state',
  );
  const clearPaused = db.prepare('DELETE FROM app_paused WHERE thread_id = ?');
  const getPaused = db.prepare('SELECT state FROM app_paused WHERE thread_id = ?');
  let commits = 0;
  return {
    durability: 'synchronous=FULL (WAL)',
    commits: () => commits,
    load: async (threadId) => select.all(threadId).map((r) => JSON.parse(String(r.body)) as unknown),
    async save(threadId, from, items, paused) {
      db.exec('BEGIN IMMEDIATE');
      try {
        items.forEach((m, i) => insert.run(threadId, from + i, JSON.stringify(m)));
        if (paused === null) clearPaused.run(threadId);
        else if (paused !== undefined) setPaused.run(threadId, paused);
        db.exec('COMMIT');
        commits++;
      } catch (err) {
        db.exec('ROLLBACK');
        throw err;
      }
    },
    paused: async (threadId) => {
      const r = getPaused.get(threadId);
      return r ? String(r.state) : undefined;
    },
    close: async () => db.close(),
  };
}

/** The application's tables in a new PostgreSQL schema, on its own pool of `max` connections. */
export async function postgresAppStore(scratch: Scratch, name: string, max = 16): Promise<AppStore> {
  const schema = scratch.schema(name);
  const pool = new pg.Pool({ connectionString: BENCH_DATABASE_URL, max });
  pool.on('error', () => undefined); // a dropped idle connection must not crash the run
  await pool.query(`CREATE SCHEMA ${schema}`);
  for (const t of TABLES) await pool.query(t.replace('CREATE TABLE ', `CREATE TABLE ${schema}.`));
  let commits = 0;
  return {
    durability: 'server defaults',
    commits: () => commits,
    async load(threadId) {
      const r = await pool.query<{ body: string }>(
        `SELECT body FROM ${schema}.app_messages WHERE thread_id = $1 ORDER BY seq`,
        [threadId],
      );
      return r.rows.map((x) => JSON.parse(x.body) as unknown);
    },
    async save(threadId, from, items, paused) {
      const c = await pool.connect();
      try {
        await c.query('BEGIN');
        if (items.length)
          await c.query(
            `INSERT INTO ${schema}.app_messages (thread_id, seq, body) SELECT $1, $2 + o - 1, b FROM unnest($3::text[]) WITH ORDINALITY AS t(b, o)`,
            [threadId, from, items.map((m) => JSON.stringify(m))],
          );
        if (paused === null) await c.query(`DELETE FROM ${schema}.app_paused WHERE thread_id = $1`, [threadId]);
        else if (paused !== undefined)
          await c.query(
            `INSERT INTO ${schema}.app_paused (thread_id, state) VALUES ($1, $2) ON CONFLICT (thread_id) DO UPDATE SET state = excluded.state`,
            [threadId, paused],
          );
        await c.query('COMMIT');
        commits++;
      } catch (err) {
        await c.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        c.release();
      }
    },
    async paused(threadId) {
      const r = await pool.query<{ state: string }>(`SELECT state FROM ${schema}.app_paused WHERE thread_id = $1`, [
        threadId,
      ]);
      return r.rows[0]?.state;
    },
    close: () => pool.end(),
  };
}
