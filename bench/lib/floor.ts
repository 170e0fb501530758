/**
 * The floor: the least durable work a pause → resume cycle can do, on the
 * same drivers Interlock uses. A pause is a 2 KB insert, a resume a status
 * update, each its own transaction (so each its own WAL sync).
 */
import pg from 'pg';
import { DatabaseSync } from 'node:sqlite';
import type { Durability } from './backends.ts';
import { BENCH_DATABASE_URL } from './backends.ts';

export interface Floor {
  pause(): Promise<number>;
  resume(id: number): Promise<void>;
  close(): Promise<void>;
}

const BODY = 'x'.repeat(2048);

/** node:sqlite, WAL, `synchronous` as Interlock's store sets it for `durability`. */
export function sqliteFloor(path: string, durability: Durability): Floor {
  const db = new DatabaseSync(path);
  db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = ${durability === 'full' ? 'FULL' : 'NORMAL'};`);
  db.exec(
    `CREATE TABLE floor (id INTEGER PRIMARY KEY, status TEXT NOT NULL, body TEXT NOT NULL, updated_at INTEGER NOT NULL)`,
  );
  const ins = db.prepare(`INSERT INTO floor (status, body, updated_at) VALUES ('pending', ?, ?)`);
  const upd = db.prepare(`UPDATE floor SET status = 'done', updated_at = ? WHERE id = ?`);
  return {
    async pause() {
      db.exec('BEGIN IMMEDIATE');
      const id = Number(ins.run(BODY, Date.now()).lastInsertRowid);
      db.exec('COMMIT');
      return id;
    },
    async resume(id) {
      db.exec('BEGIN IMMEDIATE');
      upd.run(Date.now(), id);
      db.exec('COMMIT');
    },
    async close() {
      db.close();
    },
  };
}

/** pg, a pool of `max` connections, the server's default durability (fsync, synchronous_commit). */
export async function postgresFloor(schema: string, max: number): Promise<Floor> {
  const pool = new pg.Pool({ connectionString: BENCH_DATABASE_URL, max, options: `-c search_path=${schema}` });
  // An idle connection dropped by the server (a restart) must not crash the run; the next query reports it.
  pool.on('error', () => undefined);
  await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  await pool.query(
    `CREATE TABLE ${schema}.floor (id BIGSERIAL PRIMARY KEY, status TEXT NOT NULL, body TEXT NOT NULL, updated_at BIGINT NOT NULL)`,
  );
  return {
    async pause() {
      // One statement outside BEGIN is its own transaction: one round trip, one commit.
      const r = await pool.query<{ id: string }>({
        name: 'floor_ins',
        text: `INSERT INTO floor (status, body, updated_at) VALUES ('pending', $1, $2) RETURNING id`,
        values: [BODY, Date.now()],
      });
      return Number(r.rows[0]!.id);
    },
    async resume(id) {
      await pool.query({
        name: 'floor_upd',
        text: `UPDATE floor SET status = 'done', updated_at = $1 WHERE id = $2`,
        values: [Date.now(), id],
      });
    },
    async close() {
      await pool.end();
    },
  };
}
