import { ValidationError } from '../../core/index.ts';
import type { ExecutionRow, FinishedExecution, LedgerStoreOps, NewClaim } from '../types.ts';
import {
  fromJson,
  num,
  numOrNull,
  strOrNull,
  type Dialect,
  type Row,
  type SqlExecutor,
  type OpShape,
} from './executor.ts';

function toExecution(r: Row): ExecutionRow {
  return {
    key: String(r.key),
    requestId: strOrNull(r.request_id),
    threadId: strOrNull(r.thread_id),
    tool: String(r.tool),
    args: fromJson(r.args),
    actionHash: String(r.action_hash),
    status: r.status as ExecutionRow['status'],
    leaseOwner: strOrNull(r.lease_owner),
    leaseUntil: numOrNull(r.lease_until),
    attempts: num(r.attempts),
    result: r.result === null || r.result === undefined ? undefined : fromJson(r.result),
    error: strOrNull(r.error),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

const FIELD = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Finished executions that ran without a claim, in one statement (see LedgerStoreOps.recordExecutions). */
async function recordExecutions(db: SqlExecutor, rows: ReadonlyArray<FinishedExecution>): Promise<void> {
  if (rows.length === 0) return;
  const params: unknown[] = [];
  const values = rows.map((e) => {
    params.push(
      e.key,
      e.threadId,
      e.tool,
      JSON.stringify(e.args),
      e.actionHash,
      e.status,
      e.result === undefined ? null : JSON.stringify(e.result),
      e.error,
      e.createdAt,
      e.updatedAt,
      e.tier,
    );
    const b = params.length - 11;
    // No request, no lease: the row is final when written (attempt 1).
    return `($${b + 1}, NULL, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, NULL, NULL, 1, $${b + 7}, $${b + 8}, $${b + 9}, $${b + 10}, $${b + 11})`;
  });
  await db.send(
    `INSERT INTO il_executions (key, request_id, thread_id, tool, args, action_hash, status, lease_owner, lease_until, attempts, result, error, created_at, updated_at, tier)
       VALUES ${values.join(', ')} ON CONFLICT (key) DO NOTHING`,
    params,
  );
}

/** A claim's row as first written: running, leased, attempt 1. */
const INSERT_CLAIM = `INSERT INTO il_executions (key, request_id, thread_id, tool, args, action_hash, status, lease_owner, lease_until, attempts, created_at, updated_at, tier)
  VALUES ($1, $2, $3, $4, $5, $6, 'running', $7, $8, 1, $9, $9, $10)`;

function claimParams(e: NewClaim, now: number): unknown[] {
  return [
    e.key,
    e.requestId,
    e.threadId,
    e.tool,
    JSON.stringify(e.args),
    e.actionHash,
    e.leaseOwner,
    e.leaseUntil,
    now,
    e.tier ?? null,
  ];
}

/** A running claim's outcome, fenced by its owner: changes one row exactly when `owner` still holds the claim. */
const FINISH_EXECUTION = `UPDATE il_executions SET status = $3, result = $4, error = $5, lease_until = NULL, updated_at = $6
         WHERE key = $1 AND lease_owner = $2 AND status = 'running'`;

function finishParams(
  key: string,
  owner: string,
  outcome: { status: string; result?: unknown; error?: string },
  now: number,
): unknown[] {
  return [
    key,
    owner,
    outcome.status,
    outcome.result === undefined ? null : JSON.stringify(outcome.result),
    outcome.error ?? null,
    now,
  ];
}

/** Execution rows: claimed under a key with a lease, renewed, finished, read back. */
function executionOps(
  db: SqlExecutor,
): Pick<
  LedgerStoreOps,
  | 'claimExecution'
  | 'insertClaim'
  | 'releaseExecution'
  | 'renewExecution'
  | 'finishExecution'
  | 'finishHeldExecution'
  | 'getExecution'
  | 'recordExecutions'
  | 'listExecutionsForRequest'
> {
  return {
    async claimExecution(e, now) {
      const inserted = await db.all(`${INSERT_CLAIM} ON CONFLICT (key) DO NOTHING RETURNING *`, claimParams(e, now));
      if (inserted[0]) return { claimed: true, row: toExecution(inserted[0]) };
      // Someone claimed the key before: take it over only if their lease ran out (a crashed process).
      const taken = await db.all(
        `UPDATE il_executions SET lease_owner = $2, lease_until = $3, attempts = attempts + 1, updated_at = $4
         WHERE key = $1 AND status = 'running' AND lease_until < $4 RETURNING *`,
        [e.key, e.leaseOwner, e.leaseUntil, now],
      );
      if (taken[0]) return { claimed: true, row: toExecution(taken[0]) };
      const rows = await db.all(`SELECT * FROM il_executions WHERE key = $1`, [e.key]);
      return { claimed: false, row: toExecution(rows[0]!) };
    },
    async insertClaim(e, now, taken) {
      if (!taken) return db.send(INSERT_CLAIM, claimParams(e, now));
      await db.sendExpecting(`${INSERT_CLAIM} ON CONFLICT (key) DO NOTHING`, claimParams(e, now), 1, taken);
    },
    async releaseExecution(key, owner) {
      return (
        (await db.run(
          `DELETE FROM il_executions WHERE key = $1 AND lease_owner = $2 AND status = 'running' AND attempts = 1`,
          [key, owner],
        )) === 1
      );
    },
    async renewExecution(key, owner, leaseUntil) {
      return (
        (await db.run(
          `UPDATE il_executions SET lease_until = $3 WHERE key = $1 AND lease_owner = $2 AND status = 'running'`,
          [key, owner, leaseUntil],
        )) === 1
      );
    },
    async finishExecution(key, owner, outcome, now) {
      return (await db.run(FINISH_EXECUTION, finishParams(key, owner, outcome, now))) === 1;
    },
    async finishHeldExecution(key, owner, outcome, now, lost) {
      await db.sendExpecting(FINISH_EXECUTION, finishParams(key, owner, outcome, now), 1, lost);
    },
    async getExecution(key) {
      const rows = await db.all(`SELECT * FROM il_executions WHERE key = $1`, [key]);
      return rows[0] ? toExecution(rows[0]) : undefined;
    },
    recordExecutions: (rows) => recordExecutions(db, rows),
    async listExecutionsForRequest(requestId) {
      const rows = await db.all(`SELECT * FROM il_executions WHERE request_id = $1 ORDER BY created_at`, [requestId]);
      return rows.map(toExecution);
    },
  };
}

/** Sums and counts over recent executions of a tool: the aggregates a policy's rules declare. */
function aggregateOps(db: SqlExecutor, d: Dialect): Pick<LedgerStoreOps, 'aggregate'> {
  return {
    async aggregate(q) {
      for (const f of [q.field, q.groupBy?.field]) {
        if (f !== undefined && !FIELD.test(f))
          throw new ValidationError(`Aggregate field "${f}" must be a plain argument name.`, [
            { path: 'field', message: 'invalid' },
          ]);
      }
      const params: unknown[] = [q.tool, q.outcome === 'executed' ? 'succeeded' : 'failed', q.since];
      let expr = 'COUNT(*)';
      if (q.fn === 'sum') {
        params.push(q.field);
        expr = `COALESCE(SUM(${d.jsonNumber('args', `$${params.length}`)}), 0)`;
      }
      let group = '';
      if (q.groupBy) {
        // Numbers compare as numbers (JSON text of 1.50 and 1.5 differ between backends), the rest as text.
        const { field, value } = q.groupBy;
        const numeric = typeof value === 'number';
        params.push(field, numeric ? value : String(value));
        const f = `$${params.length - 1}`;
        group = ` AND ${numeric ? d.jsonNumber('args', f) : d.jsonText('args', f)} = $${params.length}`;
      }
      const rows = await db.all(
        `SELECT ${expr} AS v FROM il_executions WHERE tool = $1 AND status = $2 AND updated_at >= $3${group}`,
        params,
      );
      return num(rows[0]?.v ?? 0);
    },
  };
}

/** The execute-once ledger: a side effect runs under a key at most once. */
export function ledgerOps(db: SqlExecutor, d: Dialect): LedgerStoreOps {
  return { ...executionOps(db), ...aggregateOps(db, d) };
}

/**
 * How each operation runs outside a caller's transaction (see {@link OpShape}).
 * Kept next to the SQL it describes; the type makes a new operation without a shape a compile error.
 */
export const ledgerShapes: { [K in keyof ReturnType<typeof ledgerOps>]: OpShape } = {
  claimExecution: 'multi',
  insertClaim: 'write',
  releaseExecution: 'write',
  renewExecution: 'write',
  finishExecution: 'write',
  finishHeldExecution: 'write',
  getExecution: 'read',
  recordExecutions: 'write',
  listExecutionsForRequest: 'read',
  aggregate: 'read',
};
