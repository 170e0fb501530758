import type { Store } from './types.ts';
import { createSqliteStore } from './sqlite/sqlite-store.ts';

/**
 * The store the environment asks for: PostgreSQL when `url` (or `DATABASE_URL`)
 * is a `postgres://` URL (tables in `INTERLOCK_PG_SCHEMA`, default `public`),
 * else the embedded SQLite file under `INTERLOCK_DATA_DIR` (default `./data`).
 * Migrations are applied before it returns. The PostgreSQL driver is loaded
 * only when a `postgres://` URL asks for it, so SQLite users never load `pg`.
 */
export async function openStore(
  url: string | undefined = process.env.DATABASE_URL,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Store> {
  const schema = env.INTERLOCK_PG_SCHEMA;
  let store: Store;
  if (url && /^postgres(ql)?:\/\//.test(url)) {
    const { createPostgresStore } = await import('./postgres/postgres-store.ts');
    store = createPostgresStore({ connectionString: url, ...(schema ? { schema } : {}) });
  } else {
    store = createSqliteStore(url ? { path: url.replace(/^sqlite:/, '') } : {});
  }
  await store.migrate();
  return store;
}
