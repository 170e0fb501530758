/**
 * `interlock-approvals/postgres`: the PostgreSQL store, for several processes on one database.
 * Needs the `pg` package (a dependency of Interlock).
 * @example
 * import { createPostgresStore } from 'interlock-approvals/postgres';
 * const store = createPostgresStore({ connectionString: process.env.DATABASE_URL });
 * await store.migrate();
 */
export { createPostgresStore, type PostgresStoreOptions } from './store/postgres/postgres-store.ts';
export type { PgTimeouts } from './store/postgres/timeouts.ts';
