import { performance } from 'node:perf_hooks';
import { ConfigError } from '../core/index.ts';
import type { Interlock, ThreadRunner } from '../engine/index.ts';
import type { JobRow } from '../store/types.ts';
import { handleResume, type ResumeOptions } from './resume.ts';

/** Something that delivers notifications from the outbox (see `createNotifier`). */
export interface OutboxDelivery {
  /** Deliver up to `limit` due notifications; returns how many jobs it claimed. */
  runOnce(limit?: number): Promise<number | { claimed: number }>;
}

/** Options of {@link createWorker}. */
export interface WorkerOptions {
  interlock: Interlock;
  /** Native agents and adapter agents: a thread is resumed by the one whose name it carries. */
  agents: ThreadRunner[];
  notifier?: OutboxDelivery;
  /** Idle wait between polls (default 200 ms). A poll that found work polls again at once. */
  pollMs?: number;
  /** Lease on a claimed job (default: the engine's `leaseMs`): a job of a killed worker is picked up after it. */
  leaseMs?: number;
  /** Jobs claimed per poll (default 8). */
  batch?: number;
  /** Sweep for expired requests every this many ms (default 1 s; 0 disables the sweeper). */
  sweepMs?: number;
  /** Called with errors the loop survives (a failed poll); default logs to stderr. */
  onError?: (err: unknown) => void;
  /**
   * How long a resume job whose agent this worker lacks is left for another
   * worker before its thread fails (default 15 minutes; see docs/deploying.md).
   */
  unknownAgentMs?: number;
  /** Visible warnings (a job left for another worker); default a process warning. */
  onWarning?: (message: string) => void;
}

/** A running worker. */
export interface Worker {
  /** Process what is due now, once: resume jobs, notifications, expired requests. Returns jobs handled. */
  runOnce(): Promise<number>;
  start(): void;
  /** Graceful stop: claim nothing more, finish what is in hand, then resolve. */
  stop(): Promise<void>;
  readonly stats: {
    resumed: number;
    retried: number;
    deferred: number;
    dead: number;
    notified: number;
    expired: number;
  };
}

/**
 * The background half of Interlock: resumes threads after decisions, applies
 * timeout defaults, delivers notifications. Several workers (processes) may
 * run against one PostgreSQL database; leases keep their work apart.
 */
export function createWorker(o: WorkerOptions): Worker {
  const il = o.interlock;
  const pollMs = o.pollMs ?? 200;
  const leaseMs = o.leaseMs ?? il.leaseMs;
  const batch = o.batch ?? 8;
  const sweepMs = o.sweepMs ?? 1000;
  const onError = o.onError ?? ((err: unknown) => console.error('interlock worker:', err));
  const stats = { resumed: 0, retried: 0, deferred: 0, dead: 0, notified: 0, expired: 0 };
  let running = false;
  let loop: Promise<void> | undefined;
  // On the monotonic clock: a wall clock stepped back (an NTP correction) must not hold the sweeper off
  // for the length of the step, nor a step forward make it run back to back.
  let lastSweep = Number.NEGATIVE_INFINITY;
  let wake: (() => void) | undefined;
  const resume: ResumeBatch = {
    resume: resumeOptions(o),
    leaseMs,
    stats,
    // Stopping: the loop was started and is asked to end.
    stopping: () => !running && loop !== undefined,
  };

  async function runOnce(): Promise<number> {
    let handled = 0;
    const now = il.now();
    const tick = performance.now();
    if (sweepMs > 0 && tick - lastSweep >= sweepMs) {
      lastSweep = tick;
      stats.expired += (await il.expireDue({ batch: 500, max: 5000 })).length;
    }
    const jobs = await il.jobs.claimJobs(['resume'], il.owner, now, now + leaseMs, batch);
    handled += await resumeClaimed(resume, jobs);
    if (o.notifier) {
      const r = await o.notifier.runOnce(batch);
      const n = typeof r === 'number' ? r : r.claimed;
      stats.notified += n;
      handled += n;
    }
    return handled;
  }

  return {
    stats,
    runOnce,
    start() {
      if (running) return;
      running = true;
      const off = il.on((e) => {
        // A decision in this process: resume without waiting for the next poll.
        if (e.type === 'approval.decided' || e.type === 'approval.created') wake?.();
      });
      loop = (async () => {
        while (running) {
          let handled = 0;
          try {
            handled = await runOnce();
          } catch (err) {
            onError(err);
          }
          if (handled === 0 && running) {
            await sleep(pollMs, (w) => (wake = w));
            wake = undefined;
          }
        }
        off();
      })();
    },
    async stop() {
      running = false;
      wake?.();
      await loop;
      loop = undefined;
    },
  };
}

/** How this worker resumes threads; `unknownAgentMs` is checked here, when the worker is made. */
function resumeOptions(o: WorkerOptions): ResumeOptions {
  if (o.unknownAgentMs !== undefined && (!Number.isInteger(o.unknownAgentMs) || o.unknownAgentMs < 0)) {
    throw new ConfigError(
      `createWorker: "unknownAgentMs" must be a whole number of milliseconds, 0 or more (default 900000), not ${String(o.unknownAgentMs)}.`,
    );
  }
  return {
    interlock: o.interlock,
    agents: new Map(o.agents.map((a) => [a.name, a])),
    owner: o.interlock.owner,
    ...(o.unknownAgentMs === undefined ? {} : { unknownAgentMs: o.unknownAgentMs }),
    ...(o.onWarning ? { warn: o.onWarning } : {}),
  };
}

/** What resuming a poll's claimed jobs needs. */
interface ResumeBatch {
  resume: ResumeOptions;
  leaseMs: number;
  stats: Worker['stats'];
  /** Whether the worker is stopping: jobs not started yet are given back. */
  stopping: () => boolean;
}

/** Resume claimed jobs one after another, counting their outcomes; returns the work done here. */
async function resumeClaimed(b: ResumeBatch, jobs: readonly JobRow[]): Promise<number> {
  const { interlock: il, owner } = b.resume;
  let handled = 0;
  // The jobs run one after another: keep the leases of those not finished yet alive meanwhile,
  // so a long run does not let other workers re-claim the rest (or its own job).
  const open = new Set(jobs.map((j) => j.id));
  const renewal = setInterval(
    () => void il.jobs.renewJobs([...open], owner, il.now() + b.leaseMs).catch(() => undefined),
    Math.max(50, b.leaseMs / 3),
  );
  renewal.unref();
  try {
    for (const job of jobs) {
      if (b.stopping()) {
        // Stopping: give back what we claimed but did not start.
        await il.jobs.failJob(job.id, owner, 'worker stopped before starting it', il.now(), il.now());
        open.delete(job.id);
        continue;
      }
      const out = await handleResume(b.resume, job);
      open.delete(job.id);
      if (out === 'done') b.stats.resumed++;
      else if (out === 'retry') b.stats.retried++;
      else if (out === 'deferred') b.stats.deferred++;
      else b.stats.dead++;
      // A job left for another worker is not work done here: it does not keep the loop polling at once.
      if (out !== 'deferred') handled++;
    }
  } finally {
    clearInterval(renewal);
  }
  return handled;
}

/** Wait `ms`, or less: `setWake` receives the function that ends the wait early (a decision to act on). */
function sleep(ms: number, setWake: (wake: () => void) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    setWake(() => {
      clearTimeout(t);
      resolve();
    });
  });
}
