/** A database row as the driver returns it. */
export type Row = Record<string, unknown>;

/**
 * The minimal driver surface the shared SQL repository needs. SQL is written
 * once with `$1`-style placeholders; each backend adapts it.
 */
export interface SqlExecutor {
  all(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Run a statement; returns the number of rows it changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /**
   * A write whose result nobody reads. Inside a PostgreSQL transaction it is sent and not waited
   * for: it travels with the next statement that is, or with the COMMIT, and if it fails the
   * transaction fails with its error there. Elsewhere it runs like {@link run}. Only for writes
   * whose success the rest of the transaction does not depend on before it commits.
   */
  send(sql: string, params?: readonly unknown[]): Promise<void>;
  /**
   * {@link send} for a write that must change exactly `rows` rows (an INSERT or UPDATE without
   * RETURNING): if it changes another number, the transaction fails with `failure()` — checked by
   * the database on PostgreSQL, so the write can still travel with the COMMIT.
   */
  sendExpecting(sql: string, params: readonly unknown[], rows: number, failure: () => Error): Promise<void>;
}

/** SQL fragments that differ between backends: the only place they differ. */
export interface Dialect {
  /** Which backend: picks a migration statement's variant where the two differ. */
  name: 'sqlite' | 'postgres';
  /** Appended to a SELECT that the transaction will update. */
  forUpdate: string;
  /** Appended to a SELECT that claims work other processes may also claim. */
  forUpdateSkipLocked: string;
  /** A JSON text column's top-level field as text (`true`/`false` for booleans). `param` is the placeholder holding the field name. */
  jsonText(column: string, param: string): string;
  /** A JSON text column's top-level field as a number; NULL when it is not a JSON number. */
  jsonNumber(column: string, param: string): string;
  /** The database appends audit events itself (`il_audit_append`, migration 7): no head read first. */
  auditFunction: boolean;
}

/** Parse a JSON column (text in both backends, so bytes round-trip exactly). */
export function fromJson<T>(v: unknown): T {
  return (typeof v === 'string' ? JSON.parse(v) : v) as T;
}

export function num(v: unknown): number {
  return typeof v === 'number' ? v : Number(v);
}

export function numOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : num(v);
}

export function strOrNull(v: unknown): string | null {
  return v === null || v === undefined ? null : (v as string | number).toString();
}

/** `$start, $start+1, …` placeholders for an IN list. */
export function placeholders(count: number, start: number): string {
  return Array.from({ length: count }, (_, i) => `$${start + i}`).join(', ');
}

/**
 * A WHERE clause of `column <op> $n` conditions, skipping undefined values.
 * @example where([['thread_id', '=', threadId], ['seq', '>', afterSeq]]) // { sql: 'WHERE thread_id = $1', params: [...] }
 */
export function where(conditions: ReadonlyArray<readonly [column: string, op: '=' | '>' | '<', value: unknown]>): {
  sql: string;
  params: unknown[];
} {
  const params: unknown[] = [];
  const parts: string[] = [];
  for (const [column, op, value] of conditions) {
    if (value === undefined || value === null || value === '') continue;
    params.push(value);
    parts.push(`${column} ${op} $${params.length}`);
  }
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params };
}

/**
 * How a store operation runs when called on a Store rather than inside a caller's transaction:
 * - `read`: one SQL statement that reads — atomic alone, runs on the plain path;
 * - `write`: one SQL statement that writes — atomic alone; where commits can be shared
 *   (SQLite's group commit) it joins one;
 * - `multi`: several statements (read-then-write, several steps) — runs in a transaction of its own.
 * Marking a multi-statement operation `read`/`write` would cost atomicity; the opposite mistake costs a BEGIN/COMMIT.
 */
export type OpShape = 'read' | 'write' | 'multi';
