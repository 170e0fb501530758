import type { JobRow, JobStoreOps } from '../types.ts';
import {
  fromJson,
  num,
  numOrNull,
  placeholders,
  strOrNull,
  type Dialect,
  type Row,
  type SqlExecutor,
  where,
  type OpShape,
} from './executor.ts';

function toJob(r: Row): JobRow {
  return {
    id: String(r.id),
    kind: String(r.kind),
    threadId: strOrNull(r.thread_id),
    requestId: strOrNull(r.request_id),
    payload: fromJson(r.payload),
    status: r.status as JobRow['status'],
    attempts: num(r.attempts),
    runAt: num(r.run_at),
    leaseOwner: strOrNull(r.lease_owner),
    leaseUntil: numOrNull(r.lease_until),
    lastError: strOrNull(r.last_error),
    createdAt: num(r.created_at),
  };
}

/** A job's life: enqueued, claimed under a lease, then completed, deferred, retried or dead. */
function jobLifecycleOps(
  db: SqlExecutor,
  d: Dialect,
): Pick<
  JobStoreOps,
  'enqueueJob' | 'claimJobs' | 'settleResumeJobs' | 'completeJob' | 'deferJob' | 'renewJobs' | 'failJob'
> {
  return {
    async enqueueJob(j) {
      await db.send(
        `INSERT INTO il_jobs (id, kind, thread_id, request_id, payload, status, attempts, run_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, 'ready', 0, $6, $7, $7)`,
        [j.id, j.kind, j.threadId, j.requestId, JSON.stringify(j.payload), j.runAt, j.createdAt],
      );
    },
    async claimJobs(kinds, owner, now, leaseUntil, limit) {
      if (kinds.length === 0) return [];
      const k = placeholders(kinds.length, 5);
      // Ready jobs that are due, and running jobs whose worker's lease ran out (it died).
      const rows = await db.all(
        `UPDATE il_jobs SET status = 'running', lease_owner = $1, lease_until = $2, attempts = attempts + 1, updated_at = $3
         WHERE id IN (
           SELECT id FROM il_jobs
           WHERE ((status = 'ready' AND run_at <= $3) OR (status = 'running' AND lease_until < $3)) AND kind IN (${k})
           ORDER BY run_at LIMIT $4${d.forUpdateSkipLocked})
         RETURNING *`,
        [owner, leaseUntil, now, limit, ...kinds],
      );
      return rows.map(toJob).sort((a, b) => a.runAt - b.runAt);
    },
    async settleResumeJobs(threadId, requestIds, now) {
      if (requestIds.length === 0) return;
      await db.send(
        `UPDATE il_jobs SET status = 'done', updated_at = $2 WHERE kind = 'resume' AND thread_id = $1 AND status = 'ready' AND request_id IN (${placeholders(requestIds.length, 3)})`,
        [threadId, now, ...requestIds],
      );
    },
    async completeJob(id, owner, now) {
      return (
        (await db.run(
          `UPDATE il_jobs SET status = 'done', lease_owner = NULL, lease_until = NULL, updated_at = $3 WHERE id = $1 AND lease_owner = $2 AND status = 'running'`,
          [id, owner, now],
        )) === 1
      );
    },
    async deferJob(id, owner, note, runAt, now) {
      return (
        (await db.run(
          `UPDATE il_jobs SET status = 'ready', run_at = $4, last_error = $3, lease_owner = NULL, lease_until = NULL, attempts = attempts - 1, updated_at = $5
           WHERE id = $1 AND lease_owner = $2 AND status = 'running'`,
          [id, owner, note, runAt, now],
        )) === 1
      );
    },
    async renewJobs(ids, owner, leaseUntil) {
      if (ids.length === 0) return 0;
      return db.run(
        `UPDATE il_jobs SET lease_until = $2 WHERE lease_owner = $1 AND status = 'running' AND id IN (${placeholders(ids.length, 3)})`,
        [owner, leaseUntil, ...ids],
      );
    },
    async failJob(id, owner, error, retryAt, now) {
      return (
        (await db.run(
          `UPDATE il_jobs SET status = $4, run_at = COALESCE($5, run_at), last_error = $3, lease_owner = NULL, lease_until = NULL, updated_at = $6
           WHERE id = $1 AND lease_owner = $2 AND status = 'running'`,
          [id, owner, error, retryAt === null ? 'dead' : 'ready', retryAt, now],
        )) === 1
      );
    },
  };
}

/** Jobs read back: one by id, counts by status, listings by thread, request or kind. */
function jobReads(db: SqlExecutor): Pick<JobStoreOps, 'getJob' | 'countJobs' | 'listJobs'> {
  return {
    async getJob(id) {
      const rows = await db.all(`SELECT * FROM il_jobs WHERE id = $1`, [id]);
      return rows[0] ? toJob(rows[0]) : undefined;
    },
    async countJobs(kind, since) {
      const out = { ready: 0, running: 0, done: 0, dead: 0 };
      for (const r of await db.all(
        `SELECT status, COUNT(*) AS n FROM il_jobs WHERE kind = $1 AND created_at >= $2 GROUP BY status`,
        [kind, since],
      )) {
        out[r.status as keyof typeof out] = num(r.n);
      }
      return out;
    },
    async listJobs(f) {
      const w = where([
        ['thread_id', '=', f.threadId],
        ['request_id', '=', f.requestId],
        ['kind', '=', f.kind],
      ]);
      const rows = await db.all(`SELECT * FROM il_jobs ${w.sql} ORDER BY created_at, id`, w.params);
      return rows.map(toJob);
    },
  };
}

/** Durable jobs with leases: resume workers and notification delivery claim from here. */
export function jobOps(db: SqlExecutor, d: Dialect): JobStoreOps {
  return { ...jobLifecycleOps(db, d), ...jobReads(db) };
}

/**
 * How each operation runs outside a caller's transaction (see {@link OpShape}).
 * Kept next to the SQL it describes; the type makes a new operation without a shape a compile error.
 */
export const jobShapes: { [K in keyof ReturnType<typeof jobOps>]: OpShape } = {
  enqueueJob: 'write',
  claimJobs: 'write',
  completeJob: 'write',
  deferJob: 'write',
  renewJobs: 'write',
  settleResumeJobs: 'write',
  failJob: 'write',
  getJob: 'read',
  listJobs: 'read',
  countJobs: 'read',
};
