import type { Agent } from '../agent/index.ts';
import { endThread, type Interlock } from '../engine/index.ts';
import type { JobRow } from '../store/types.ts';
import { InterlockError } from '../core/index.ts';
import { backoffMs } from './backoff.ts';

/** What handling one job came to. */
export type JobOutcome = 'done' | 'retry' | 'dead';

/** Options of resume handling. */
export interface ResumeOptions {
  interlock: Interlock;
  /** Agents by name: a thread is resumed by the agent that started it. */
  agents: ReadonlyMap<string, Agent>;
  owner: string;
  /** Attempts before a resume job is given up (default 10). */
  maxAttempts?: number;
}

/**
 * Resume the thread of one claimed `resume` job (queued by a decision, a
 * timeout, or a thread start as its recovery). The loop itself is
 * idempotent (executions go through the ledger, a finished step is not
 * repeated), so a job run twice does no harm; a thread another process is
 * running ("busy") is retried shortly.
 */
export async function handleResume(o: ResumeOptions, job: JobRow): Promise<JobOutcome> {
  const { store } = o.interlock;
  const now = () => o.interlock.context.now();
  const threadId = job.threadId;
  if (!threadId) {
    await store.completeJob(job.id, o.owner, now());
    return 'done';
  }
  try {
    const thread = await store.getThread(threadId);
    const agent = thread ? o.agents.get(thread.agent) : undefined;
    if (!thread || !agent) {
      const why = !thread ? `thread ${threadId} not found` : `no agent named "${thread.agent}" is registered with this worker; register it in the config`;
      return await giveUp(o, job, why);
    }
    if (job.payload.start === true && thread.status !== 'running') {
      // The recovery job of a thread start (see createThreadsAdapter): the run paused or ended; nothing to do.
      await store.completeJob(job.id, o.owner, now());
      return 'done';
    }
    // A start cut short before its first checkpoint has nothing saved to continue from: run it from its input.
    const input = job.payload.start === true && typeof job.payload.input === 'string' && thread.messageCount === 0 ? job.payload.input : null;
    const result = input === null ? await agent.resume(threadId) : await agent.invoke(input, { threadId });
    if (result.stopReason === 'busy') {
      // Another run has the thread: try again soon, and a wait is not a failed attempt.
      await store.deferJob(job.id, o.owner, 'thread busy in another run', now() + 250, now());
      return 'retry';
    }
    await store.completeJob(job.id, o.owner, now());
    return 'done';
  } catch (err) {
    if (err instanceof InterlockError && err.code === 'lease_lost') {
      // This run outlived its lease and another run has the thread: like busy, not a failure.
      await store.deferJob(job.id, o.owner, 'thread taken over by another run', now() + 250, now());
      return 'retry';
    }
    const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    if (job.attempts >= (o.maxAttempts ?? 10)) return giveUp(o, job, message);
    await store.failJob(job.id, o.owner, message, now() + backoffMs(job.attempts), now());
    return 'retry';
  }
}

async function giveUp(o: ResumeOptions, job: JobRow, why: string): Promise<JobOutcome> {
  const { store } = o.interlock;
  const at = o.interlock.context.now();
  await store.transaction(async (tx) => {
    await tx.failJob(job.id, o.owner, why, null, at);
    // A thread another run holds a live lease on is that run's: it is not marked failed under it.
    const thread = job.threadId ? await tx.getThread(job.threadId) : undefined;
    const heldElsewhere = thread?.leaseOwner && (thread.leaseUntil ?? 0) > at;
    if (job.threadId && !heldElsewhere) {
      // Its open requests are cancelled with it: none stays decidable, none stays authorized with no run to come.
      await endThread(tx, job.threadId, { status: 'failed', actor: `system:${o.owner}`, reason: `the thread failed: ${why}`, requestId: job.requestId, payload: { resume: true, error: why, attempts: job.attempts } }, at);
    }
  });
  return 'dead';
}
