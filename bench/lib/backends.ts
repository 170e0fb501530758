/**
 * Fresh databases for the benchmark: a temporary SQLite folder and throwaway
 * PostgreSQL schemas, all removed at the end of the run.
 */
import pg from 'pg';
import { mkdtempSync, rmSync, statSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createSqliteStore, type Store } from '../../src/index.ts';
import { createPostgresStore } from '../../src/postgres.ts';

/** PostgreSQL for the benchmark: `INTERLOCK_BENCH_DATABASE_URL`, else the local `test` database. */
export const BENCH_DATABASE_URL =
  process.env.INTERLOCK_BENCH_DATABASE_URL ??
  process.env.INTERLOCK_TEST_DATABASE_URL ??
  'postgres://postgres@127.0.0.1:5432/test';

export type Durability = 'full' | 'normal';

/** Where temporary SQLite files go (same disk as the working folder's temp dir). */
export class Scratch {
  readonly dir = mkdtempSync(join(tmpdir(), 'interlock-bench-'));
  private readonly schemas: string[] = [];
  private n = 0;

  /** A new SQLite file path. */
  file(name: string): string {
    return join(this.dir, `${++this.n}-${name}.db`);
  }

  /** A new PostgreSQL schema name (dropped by `cleanup`). */
  schema(name: string): string {
    const s = `bench_${name}_${randomBytes(3).toString('hex')}`;
    this.schemas.push(s);
    return s;
  }

  async sqliteStore(durability: Durability, name = 'interlock'): Promise<Store> {
    const store = createSqliteStore({ path: this.file(name), durability });
    await store.migrate();
    return store;
  }

  async postgresStore(name = 'interlock', max = 16): Promise<{ store: Store; schema: string }> {
    const schema = this.schema(name);
    const store = createPostgresStore({ connectionString: BENCH_DATABASE_URL, schema, max });
    await store.migrate();
    return { store, schema };
  }

  async cleanup(): Promise<void> {
    if (this.schemas.length) {
      const c = new pg.Client({ connectionString: BENCH_DATABASE_URL });
      c.on('error', () => undefined);
      await c.connect();
      try {
        for (const s of this.schemas.splice(0)) await c.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
      } finally {
        await c.end();
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Bytes of an SQLite database's files (db + WAL). */
export function sqliteFileBytes(path: string): number {
  const dir = path.slice(0, path.lastIndexOf('/'));
  const base = path.slice(path.lastIndexOf('/') + 1);
  return readdirSync(dir)
    .filter((f) => f.startsWith(base))
    .reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
}

/** PostgreSQL's durability settings, as the server reports them. */
export async function postgresSettings(): Promise<Record<string, string>> {
  const c = new pg.Client({ connectionString: BENCH_DATABASE_URL });
  c.on('error', () => undefined);
  await c.connect();
  try {
    const out: Record<string, string> = {};
    for (const k of [
      'server_version',
      'fsync',
      'synchronous_commit',
      'wal_sync_method',
      'full_page_writes',
      'shared_buffers',
    ]) {
      const r = await c.query<Record<string, string>>(`SHOW ${k}`);
      out[k] = Object.values(r.rows[0] ?? {})[0] ?? '';
    }
    return out;
  } finally {
    await c.end();
  }
}

/**
 * The statements of `PROBE_SQL` (`;`-separated), run on a probe's fresh store before it measures: a schema
 * experiment (an index dropped or added) measured without a migration. Nothing when it is unset.
 */
export async function runProbeSql(store: Store): Promise<void> {
  for (const sql of (process.env.PROBE_SQL ?? '').split(';').map((s) => s.trim()))
    if (sql) await store.unsafeQuery(sql);
}
