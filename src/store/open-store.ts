import type { Store } from './types.ts';
import { createSqliteStore } from './sqlite/sqlite-store.ts';
import { createPostgresStore } from './postgres/postgres-store.ts';

/**
 * The store the environment asks for: PostgreSQL when `url` (or `DATABASE_URL`)
 * is a `postgres://` URL, else the embedded SQLite file under
 * `INTERLOCK_DATA_DIR` (default `./data`). Migrations are applied before it returns.
 */
export async function openStore(url: string | undefined = process.env.DATABASE_URL): Promise<Store> {
  const store = url && /^postgres(ql)?:\/\//.test(url) ? createPostgresStore({ connectionString: url }) : createSqliteStore(url ? { path: url.replace(/^sqlite:/, '') } : {});
  await store.migrate();
  return store;
}
