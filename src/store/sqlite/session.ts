import { DatabaseSync, type StatementSync, type SQLInputValue } from 'node:sqlite';
import type { Row } from '../sql/executor.ts';

/** How a {@link SqliteSession} opens its database. */
export interface SessionOptions {
  /** Database file, or `:memory:`. */
  path: string;
  /** `full` syncs the WAL on every commit; `normal` survives a crash of the process, not of the machine. */
  durability: 'full' | 'normal';
  /** How long SQLite itself waits for another process's write lock before answering SQLITE_BUSY (ms). */
  busyTimeoutMs: number;
}

/**
 * One SQLite connection with its prepared statements, synchronous: what runs on the store's worker
 * thread (src/store/sqlite/worker.ts), or on the event loop when the store is opened with `thread: false`.
 * SQL uses the shared `$N` placeholders; values are bound as node:sqlite takes them.
 */
export interface SqliteSession {
  all(sql: string, params: readonly unknown[]): Row[];
  /** Run a statement; the number of rows it changed. */
  run(sql: string, params: readonly unknown[]): number;
  /** Run statements without parameters (BEGIN, COMMIT, SAVEPOINT …). */
  exec(sql: string): void;
  /** A transaction is open on the connection (SQLite may end one by itself on an I/O error or a full disk). */
  readonly inTransaction: boolean;
  close(): void;
}

/** SQLite numbers its parameters `?N`; the shared SQL uses `$N`. */
function adapt(sql: string): string {
  return sql.replace(/\$(\d+)/g, '?$1');
}

function bind(params: readonly unknown[]): SQLInputValue[] {
  return params.map((p) => (p === undefined ? null : typeof p === 'boolean' ? (p ? 1 : 0) : (p as SQLInputValue)));
}

/** Open the database in WAL mode with foreign keys on; throws what node:sqlite throws. */
export function openSession(o: SessionOptions): SqliteSession {
  const db = new DatabaseSync(o.path);
  try {
    db.exec(
      `PRAGMA journal_mode = WAL; PRAGMA busy_timeout = ${Math.floor(o.busyTimeoutMs)}; PRAGMA foreign_keys = ON;`,
    );
    db.exec(`PRAGMA synchronous = ${o.durability === 'normal' ? 'NORMAL' : 'FULL'}`);
  } catch (err) {
    db.close();
    throw err;
  }
  // Each statement is prepared once per connection and cached by its SQL text.
  const cache = new Map<string, StatementSync>();
  const prepare = (sql: string): StatementSync => {
    let s = cache.get(sql);
    if (!s) {
      s = db.prepare(adapt(sql));
      cache.set(sql, s);
    }
    return s;
  };
  return {
    all: (sql, params) => prepare(sql).all(...bind(params)),
    run: (sql, params) => Number(prepare(sql).run(...bind(params)).changes),
    exec: (sql) => db.exec(sql),
    get inTransaction() {
      return db.isTransaction;
    },
    close: () => db.close(),
  };
}
