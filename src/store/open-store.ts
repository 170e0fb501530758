import { ConfigError } from '../core/index.ts';
import type { Store } from './types.ts';
import { createSqliteStore } from './sqlite/sqlite-store.ts';

/**
 * The store the environment asks for: PostgreSQL when `url` (or `DATABASE_URL`)
 * is a `postgres://` URL (tables in `INTERLOCK_PG_SCHEMA`, default `public`; at most
 * `INTERLOCK_PG_POOL_MAX` pooled connections per process, default 10, plus one for live events),
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
    const max = poolMax(env.INTERLOCK_PG_POOL_MAX);
    store = createPostgresStore({
      connectionString: url,
      ...(schema ? { schema } : {}),
      ...(max === undefined ? {} : { max }),
    });
  } else {
    store = createSqliteStore(url ? { path: url.replace(/^sqlite:/, '') } : {});
  }
  await store.migrate();
  return store;
}

/** `INTERLOCK_PG_POOL_MAX`: replicas share the server's `max_connections`, so each may need fewer. */
function poolMax(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 1000)
    throw new ConfigError(
      `INTERLOCK_PG_POOL_MAX must be a whole number of connections from 1 to 1000 (default 10), not "${raw}".`,
    );
  return n;
}
