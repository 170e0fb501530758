import type { Interlock, ThreadRunner } from '../engine/index.ts';
import type { JobRow } from '../store/types.ts';
import { InterlockError } from '../core/index.ts';
import { backoffMs } from '../core/backoff.ts';

/** What handling one job came to (`deferred`: left for a worker that has the thread's agent). */
export type JobOutcome = 'done' | 'retry' | 'deferred' | 'dead';

/** Default of {@link ResumeOptions.unknownAgentMs}: 15 minutes. */
export const DEFAULT_UNKNOWN_AGENT_MS = 15 * 60_000;
/** How soon a job deferred for an unknown agent is offered again. */
const UNKNOWN_AGENT_RETRY_MS = 2000;
/** Start of the note a job deferred for an unknown agent carries (its `lastError`). */
const UNKNOWN_AGENT_NOTE = 'unknown_agent:';

/** Options of resume handling. */
export interface ResumeOptions {
  interlock: Interlock;
  /** Agents by name: a thread is resumed by the agent that started it. */
  agents: ReadonlyMap<string, ThreadRunner>;
  owner: string;
  /** Attempts before a resume job is given up (default 10). */
  maxAttempts?: number;
  /**
   * How long a resume job whose thread's agent this worker does not have is
   * left for a worker that has it, counted from when the job was queued
   * (default 15 minutes). A rolling deploy (old and new workers side by side)
   * must finish within it; after it, the thread fails.
   */
  unknownAgentMs?: number;
  /** Where a visible warning goes (the first deferral of each job). */
  warn?: (message: string) => void;
}

/**
 * Resume the thread of one claimed `resume` job (queued by a decision, a
 * timeout, or a thread start as its recovery). The loop itself is
 * idempotent (executions go through the ledger, a finished step is not
 * repeated), so a job run twice does no harm; a thread another process is
 * running ("busy") is retried shortly.
 */
export async function handleResume(o: ResumeOptions, job: JobRow): Promise<JobOutcome> {
  const { jobs, threads } = o.interlock;
  const now = () => o.interlock.now();
  let threadId = job.threadId;
  if (!threadId) {
    await jobs.completeJob(job.id, o.owner, now());
    return 'done';
  }
  try {
    let thread = await threads.getThread(threadId);
    // A sub-agent's or graph node's thread runs only inside its tree: the tree's root resumes it.
    const root = thread?.metadata.rootThreadId;
    if (typeof root === 'string' && root !== threadId) {
      threadId = root;
      thread = await threads.getThread(root);
    }
    const agent = thread ? o.agents.get(thread.agent) : undefined;
    if (!thread) return await giveUp(o, job, `thread ${threadId} not found`);
    if (thread.status === 'completed' || thread.status === 'aborted') {
      // Finished before this job came up (an app that resumes its own threads ran it): nothing to do,
      // and never a reason to mark it failed.
      await jobs.completeJob(job.id, o.owner, now());
      return 'done';
    }
    if (!agent) return await unknownAgent(o, job, thread.agent, typeof thread.metadata.integration === 'string');
    if (job.payload.start === true && thread.status !== 'running') {
      // The recovery job of a thread start (see createThreadsAdapter): the run paused or ended; nothing to do.
      await jobs.completeJob(job.id, o.owner, now());
      return 'done';
    }
    // A start cut short before its first checkpoint has nothing saved to continue from: run it from its input.
    const input =
      job.payload.start === true && typeof job.payload.input === 'string' && thread.messageCount === 0
        ? job.payload.input
        : null;
    const result = input === null ? await agent.resume(threadId) : await agent.invoke(input, { threadId });
    if (result.stopReason === 'busy') {
      // Another run has the thread: try again soon, and a wait is not a failed attempt.
      await jobs.deferJob(job.id, o.owner, 'thread busy in another run', now() + 250, now());
      return 'retry';
    }
    await jobs.completeJob(job.id, o.owner, now());
    return 'done';
  } catch (err) {
    if (err instanceof InterlockError && err.code === 'lease_lost') {
      // This run outlived its lease and another run has the thread: like busy, not a failure.
      await jobs.deferJob(job.id, o.owner, 'thread taken over by another run', now() + 250, now());
      return 'retry';
    }
    const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    if (job.attempts >= (o.maxAttempts ?? 10)) return giveUp(o, job, message);
    await jobs.failJob(job.id, o.owner, message, now() + backoffMs(job.attempts), now());
    return 'retry';
  }
}

/**
 * This worker has no agent of the thread's name: leave the job for a worker
 * that has (a rolling deploy runs old and new workers side by side), with a
 * warning and a `job.deferred` event (the `interlock_jobs_deferred_total`
 * metric), and fail the thread only once `unknownAgentMs` has passed since the job was queued — unless
 * a framework integration wrote the thread (`metadata.integration`): the app that runs it resumes it
 * itself, so only the job is given up.
 */
async function unknownAgent(o: ResumeOptions, job: JobRow, agent: string, appResumes: boolean): Promise<JobOutcome> {
  const { jobs } = o.interlock;
  const now = o.interlock.now();
  const limit = o.unknownAgentMs ?? DEFAULT_UNKNOWN_AGENT_MS;
  const waited = now - job.createdAt;
  if (waited >= limit && appResumes) {
    // A framework integration's thread: the app that runs it resumes it itself (resume(threadId)).
    // The job is given up; the thread and its requests are the app's, not this worker's to fail.
    await jobs.settle(job.id, o.owner, {
      status: 'dead',
      error: `no worker with an agent named "${agent}" took the job within ${Math.round(limit / 1000)} s; the thread is left to the app that runs it (register the integration's runner in the workers' config to resume it here)`,
    });
    return 'dead';
  }
  if (waited >= limit) {
    return giveUp(
      o,
      job,
      `no worker with an agent named "${agent}" took the thread's job within ${Math.round(limit / 1000)} s (INTERLOCK_UNKNOWN_AGENT_MS); register the agent in the config of the workers that share this database`,
    );
  }
  const first = !job.lastError?.startsWith(UNKNOWN_AGENT_NOTE);
  await jobs.deferJob(
    job.id,
    o.owner,
    `${UNKNOWN_AGENT_NOTE} worker ${o.owner} has no agent "${agent}"`,
    now + UNKNOWN_AGENT_RETRY_MS,
    now,
  );
  if (first) {
    (o.warn ?? ((m: string) => process.emitWarning(m)))(
      `Interlock worker ${o.owner}: thread ${job.threadId} belongs to agent "${agent}", which this worker does not have; its job is left for a worker that has it (the thread fails if none takes it within ${Math.round(limit / 1000)} s). Register the agent in this worker's config, or give this worker its own database.`,
    );
  }
  o.interlock.emit({ type: 'job.deferred', jobId: job.id, threadId: job.threadId, reason: 'unknown_agent', agent });
  return 'deferred';
}

async function giveUp(o: ResumeOptions, job: JobRow, why: string): Promise<JobOutcome> {
  // The job fails for good, and its thread with it (unless another run holds it), cancelling its open requests.
  await o.interlock.jobs.giveUpResume(job, o.owner, why);
  return 'dead';
}
