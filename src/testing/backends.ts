import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '../store/types.ts';
import { createSqliteStore } from '../store/sqlite/sqlite-store.ts';

/** How tests get a fresh, migrated store of one backend and clean it up. */
export interface BackendInitializer {
  name: 'sqlite' | 'postgres';
  /** A fresh, migrated store. A second call with the same `id` opens the same database (another "process"). */
  create(id?: string): Promise<Store>;
  /** Drop everything `create` made. */
  destroy(): Promise<void>;
  /** Environment that makes a child process (`interlock worker`, `serve`) open the same database. Call after `create`. */
  env(): Record<string, string>;
}

/** PostgreSQL used by tests: `INTERLOCK_TEST_DATABASE_URL`, else the local `test` database. */
export const TEST_DATABASE_URL = process.env.INTERLOCK_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A throwaway SQLite file in a temporary folder. */
export function sqliteBackend(): BackendInitializer {
  let dir: string | undefined;
  const stores: Store[] = [];
  return {
    name: 'sqlite',
    async create() {
      dir ??= mkdtempSync(join(tmpdir(), 'interlock-test-'));
      const s = createSqliteStore({ path: join(dir, 'interlock.db') });
      await s.migrate();
      stores.push(s);
      return s;
    },
    async destroy() {
      for (const s of stores.splice(0)) await s.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
      dir = undefined;
    },
    env() {
      if (!dir) throw new Error('call create() before env()');
      return { INTERLOCK_DATA_DIR: dir };
    },
  };
}

/**
 * A fresh PostgreSQL schema per backend instance. Fails loudly when the server
 * is unreachable: a database test that skips silently proves nothing.
 */
export function postgresBackend(): BackendInitializer {
  const schema = `il_test_${randomBytes(6).toString('hex')}`;
  const stores: Store[] = [];
  return {
    name: 'postgres',
    async create() {
      // Loaded when a PostgreSQL store is asked for: `interlock-approvals/testing` works without `pg` installed.
      const { createPostgresStore } = await import('../store/postgres/postgres-store.ts');
      const s = createPostgresStore({ connectionString: TEST_DATABASE_URL, schema, max: 8 });
      await s.migrate();
      stores.push(s);
      return s;
    },
    async destroy() {
      for (const s of stores.splice(0)) await s.close();
      const { default: pg } = await import('pg');
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      try {
        await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await c.end();
      }
    },
    env() {
      return { DATABASE_URL: TEST_DATABASE_URL, INTERLOCK_PG_SCHEMA: schema };
    },
  };
}

/** Both backends, for suites that must pass unchanged on each. */
export function allBackends(): BackendInitializer[] {
  return [sqliteBackend(), postgresBackend()];
}
