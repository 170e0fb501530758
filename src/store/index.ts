export type * from './types.ts';
export { createSqliteStore, type SqliteStoreOptions } from './sqlite/sqlite-store.ts';
export { createPostgresStore, type PostgresStoreOptions } from './postgres/postgres-store.ts';
export { openStore } from './open-store.ts';
export { isStorageFull, isStoreUnavailable } from './unavailable.ts';
