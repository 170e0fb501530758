/**
 * Suite 6: resume workers on PostgreSQL. `jobs` threads are paused on a
 * gated refund and approved, so `jobs` resume jobs are ready; then 1, 2 or 4
 * worker processes drain them (each resume reloads the checkpoint, runs the
 * refund once through the ledger, calls the model and completes the turn).
 *
 * The threads are made by running one through the agent and the engine, then
 * copying its rows with INSERT … SELECT: threads, messages, checkpoint (its
 * state pointing at the copy's request), authorized request and resume job.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Store } from '../../src/index.ts';
import { interlockPause, interlockRig, REVIEWER } from '../lib/workload.ts';
import { since } from '../lib/stats.ts';
import type { WorkerChildMessage } from './worker-child.ts';

export interface WorkerRun {
  processes: number;
  jobs: number;
  drainSec: number;
  jobsPerSec: number;
  executed: number;
  doubleExecutions: number;
  completedThreads: number;
}

const CHILD = fileURLToPath(new URL('./worker-child.ts', import.meta.url));

/** `jobs` approved, paused threads, ready to resume. */
export async function seedApproved(store: Store, jobs: number): Promise<void> {
  const rig = interlockRig(store, 'gated');
  const tpl = 'tpl';
  const requestId = await interlockPause(rig, tpl, 1);
  const req = (await store.getRequest(requestId))!;
  await rig.interlock.decide(
    requestId,
    { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
    REVIEWER,
  );
  const cp = (await store.getLatestCheckpoint(tpl))!;
  const n = `lpad(i::text, 6, '0')`;
  const series = `generate_series(1, $2::int) AS g(i)`;
  await store.unsafeQuery(
    `INSERT INTO il_threads (id, agent, agent_version, status, message_count, abort_requested, metadata, lease_owner, lease_until, created_at, updated_at)
     SELECT 'thr_w' || ${n}, agent, agent_version, status, message_count, abort_requested, metadata, NULL, NULL, created_at, updated_at
     FROM il_threads, ${series} WHERE id = $1`,
    [tpl, jobs],
  );
  await store.unsafeQuery(
    `INSERT INTO il_messages (thread_id, seq, body) SELECT 'thr_w' || ${n}, seq, body FROM il_messages, ${series} WHERE thread_id = $1`,
    [tpl, jobs],
  );
  await store.unsafeQuery(
    `INSERT INTO il_checkpoints (id, thread_id, message_count, schema_version, state, created_at)
     SELECT 'cp_w' || ${n}, 'thr_w' || ${n}, message_count, schema_version, replace(state, $3, 'apr_w' || ${n}), created_at
     FROM il_checkpoints, ${series} WHERE id = $1`,
    [cp.id, jobs, requestId],
  );
  await store.unsafeQuery(
    `INSERT INTO il_requests (id, thread_id, checkpoint_id, tool_call_id, tool, args, action_hash, reason, rule_id, tier, role,
       approvals_required, approvals_received, version, status, proposer, evidence, context, on_timeout, escalate_to, trustable,
       resolution, parent_id, superseded_by, created_at, expires_at, updated_at, resolved_at)
     SELECT 'apr_w' || ${n}, 'thr_w' || ${n}, 'cp_w' || ${n}, tool_call_id, tool, args, action_hash, reason, rule_id, tier, role,
       approvals_required, approvals_received, version, status, proposer, evidence, context, on_timeout, escalate_to, trustable,
       resolution, parent_id, superseded_by, created_at, expires_at, updated_at, resolved_at
     FROM il_requests, ${series} WHERE id = $1`,
    [requestId, jobs],
  );
  await store.unsafeQuery(
    `INSERT INTO il_jobs (id, kind, thread_id, request_id, payload, status, attempts, run_at, lease_owner, lease_until, last_error, created_at, updated_at)
     SELECT 'job_w' || ${n}, kind, 'thr_w' || ${n}, 'apr_w' || ${n}, payload, 'ready', 0, run_at, NULL, NULL, NULL, created_at, updated_at
     FROM il_jobs, ${series} WHERE kind = 'resume' AND request_id = $1`,
    [requestId, jobs],
  );
  // The template's own job is not one of the `jobs`.
  await store.unsafeQuery(`UPDATE il_jobs SET status = 'done' WHERE thread_id = $1`, [tpl]);
  await store.unsafeQuery('ANALYZE');
}

export async function runWorkers(store: Store, schema: string, processes: number, jobs: number): Promise<WorkerRun> {
  await seedApproved(store, jobs);
  const children = Array.from({ length: processes }, () =>
    fork(CHILD, [schema], { execPath: process.execPath, execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
  );
  const inbox = children.map(() => [] as WorkerChildMessage[]);
  const wait = (i: number, type: WorkerChildMessage['type']) =>
    new Promise<WorkerChildMessage>((resolve, reject) => {
      const found = inbox[i]!.find((m) => m.type === type);
      if (found) return resolve(found);
      const c = children[i]!;
      const onMsg = (m: WorkerChildMessage) => m.type === type && (c.off('close', onClose), resolve(m));
      // 'close' comes after the IPC channel is drained ('exit' may come before the last message).
      const onClose = (code: number | null) => {
        const late = inbox[i]!.find((m) => m.type === type);
        if (late) resolve(late);
        else reject(new Error(`a worker process exited (${code}) before "${type}"`));
      };
      c.on('message', onMsg);
      c.once('close', onClose);
    });
  children.forEach((c, i) => c.on('message', (m: WorkerChildMessage) => inbox[i]!.push(m)));
  await Promise.all(children.map((_, i) => wait(i, 'ready')));

  const t0 = performance.now();
  for (const c of children) c.send({ type: 'go' });
  for (;;) {
    const rows = await store.unsafeQuery(
      `SELECT COUNT(*) AS n FROM il_jobs WHERE kind = 'resume' AND status IN ('ready', 'running')`,
    );
    if (Number(rows[0]?.n ?? 0) === 0) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  const drainMs = since(t0);
  for (const c of children) c.send({ type: 'stop' });
  const stopped = (await Promise.all(children.map((_, i) => wait(i, 'stopped')))) as Array<
    Extract<WorkerChildMessage, { type: 'stopped' }>
  >;
  const effects = new Map<string, number>();
  for (const s of stopped) for (const [k, n] of s.effects) effects.set(k, (effects.get(k) ?? 0) + n);
  const completed = await store.unsafeQuery(
    `SELECT COUNT(*) AS n FROM il_threads WHERE id LIKE 'thr_w%' AND status = 'completed'`,
  );
  const counts = [...effects.values()];
  return {
    processes,
    jobs,
    drainSec: drainMs / 1000,
    jobsPerSec: jobs / (drainMs / 1000),
    executed: counts.reduce((s, n) => s + n, 0),
    doubleExecutions: counts.filter((n) => n > 1).length,
    completedThreads: Number(completed[0]?.n ?? 0),
  };
}
