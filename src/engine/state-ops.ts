import { InterlockUsageError, type ApprovalRequest, type AuditEventInput } from '../core/index.ts';
import type { JobRow, Store, ThreadClaim, ThreadRow } from '../store/types.ts';
import type { EngineContext, EngineEvent } from './context.ts';
import { commitWithEvents } from './commit-events.ts';
import { cancelOpenRequests, endThread } from './end-thread.ts';

/**
 * The engine's door to state for the layers above it (agent, worker, notify,
 * server, web, cli): reads, lease bookkeeping, and every write that needs a
 * transaction or an audit row, as one engine operation each. Nothing above the
 * engine opens a transaction or appends audit rows itself.
 *
 * Read and one-statement operations keep the store's names and signatures, so a
 * component typed against `Pick<Store, …>` accepts either.
 */

/** A thread id is taken; nothing was changed. */
export class ThreadExistsError extends InterlockUsageError {
  constructor(threadId: string) {
    super(
      'thread_exists',
      `Thread ${threadId} already exists; a start never changes an existing thread. Start a new thread (omit "threadId" or pick an unused one), or decide its pending requests to let it continue.`,
      {
        details: { threadId },
      },
    );
  }
}

/** Threads: reads, the run lease, and the writes that start and end them. */
export interface ThreadOps extends Pick<
  Store,
  'getThread' | 'listMessages' | 'loadLatest' | 'claimThread' | 'renewThreadLease' | 'releaseThread'
> {
  /**
   * Create a thread row and its recovery job (a resume job at `recoverAt`, so a start cut short is
   * run by a worker), in one transaction. Refuses an existing id ({@link ThreadExistsError}).
   */
  start(t: { id: string; agent: string; agentVersion: string; input: string; recoverAt: number }): Promise<ThreadRow>;
  /**
   * Take the thread's run lease ({@link Store.claimThread}) and load its latest checkpoint with the
   * messages it covers, read after the claim: one round trip. `latest` is what a run starts from
   * when `claimed`; a busy thread's is for its result only.
   */
  claimAndLoad(
    row: Omit<ThreadRow, 'leaseOwner' | 'leaseUntil'>,
    owner: string,
    leaseUntil: number,
    now: number,
  ): Promise<ThreadClaim>;
  /**
   * Abort a thread: a paused one ends now (its open requests are cancelled); a running one is
   * flagged and stops at its next boundary. Returns the row as it was before.
   */
  abort(threadId: string, by: string): Promise<ThreadRow>;
  /** Cancel a thread's open (pending or authorized) requests, each with a `cancelled` audit event. */
  cancelOpenRequests(threadId: string, actor: string, reason: string): Promise<ApprovalRequest[]>;
  /**
   * Keep a run lease taken with {@link claimThread} or {@link claimAndLoad}: renewed every third of
   * `leaseMs` while the run goes on (a slow model or tool must not lose it), until `stop` (the run
   * saved and gave the lease back) or `release` (give it back without saving). The one place a run
   * lease is renewed and released — the native loop, graphs and every adapter hold it through this.
   */
  holdLease(threadId: string, owner: string, leaseMs: number): LeaseHold;
}

/** A run lease being kept (see {@link ThreadOps.holdLease}). */
export interface LeaseHold {
  /** Stop renewing (the lease was given back by a save, or is about to be). */
  stop(): void;
  /** Stop renewing and give the lease back if this owner still holds it; never throws. */
  release(): Promise<void>;
}

/** Jobs: claiming and settling work items (resume, notify). */
export interface JobOps extends Pick<
  Store,
  'claimJobs' | 'renewJobs' | 'completeJob' | 'deferJob' | 'failJob' | 'getJob' | 'listJobs' | 'countJobs'
> {
  /**
   * Settle a claimed job and record why, in one transaction: `done` completes it, `retry` fails it
   * with a next attempt at `retryAt`, `dead` fails it for good. Returns false (and records nothing)
   * when the job is no longer this owner's.
   */
  settle(
    jobId: string,
    owner: string,
    outcome: { status: 'done' } | { status: 'retry' | 'dead'; error: string; retryAt?: number },
    audit?: AuditEventInput[],
  ): Promise<boolean>;
  /**
   * Give up a resume job for good and fail its thread with it (unless another run holds the
   * thread's lease), cancelling the thread's open requests.
   */
  giveUpResume(job: JobRow, owner: string, why: string): Promise<void>;
}

/** The audit log: reads, and one typed door for events that are not a side product of an engine step. */
export interface AuditOps extends Pick<Store, 'listAudit' | 'getAuditHeads'> {
  /** Append events (refusals, notifications, sign-ins, raw reads) in a transaction of their own. */
  record(events: AuditEventInput[]): Promise<void>;
}

/** Reviewer accounts and browser sessions (one statement each). */
export type ReviewerOps = Pick<
  Store,
  | 'insertReviewer'
  | 'getReviewerByTokenHash'
  | 'getReviewer'
  | 'listReviewers'
  | 'revokeReviewer'
  | 'linkIdentity'
  | 'getReviewerByIdentity'
  | 'recordPostedMessage'
  | 'listStalePostedMessages'
  | 'listPostedMessages'
>;
export type SessionOps = Pick<Store, 'insertSession' | 'getSession' | 'deleteSession' | 'deleteExpiredSessions'>;
/** Request reads beyond get/list. */
export type RequestReads = Pick<Store, 'listVoters' | 'countPendingByRole'>;

function pick<K extends keyof Store>(store: Store, keys: readonly K[]): Pick<Store, K> {
  return Object.fromEntries(keys.map((k) => [k, (store[k] as (...a: unknown[]) => unknown).bind(store)])) as Pick<
    Store,
    K
  >;
}

/** {@link ThreadOps.holdLease}: renew on a timer until stopped or released. */
function holdLease(ctx: EngineContext, threadId: string, owner: string, leaseMs: number): LeaseHold {
  const { store } = ctx;
  const renewal = setInterval(
    () => void store.renewThreadLease(threadId, owner, ctx.now() + leaseMs).catch(() => undefined),
    Math.max(50, leaseMs / 3),
  );
  renewal.unref();
  let held = true;
  const stop = () => {
    held = false;
    clearInterval(renewal);
  };
  return {
    stop,
    async release() {
      if (!held) return;
      stop();
      await store.releaseThread(threadId, owner, ctx.now()).catch(() => undefined);
    },
  };
}

/** {@link ThreadOps.start}: the thread row and its recovery job, in one transaction. */
async function startThread(ctx: EngineContext, t: Parameters<ThreadOps['start']>[0]): Promise<ThreadRow> {
  const now = ctx.now();
  const row: Omit<ThreadRow, 'leaseOwner' | 'leaseUntil'> = {
    id: t.id,
    agent: t.agent,
    agentVersion: t.agentVersion,
    status: 'running',
    messageCount: 0,
    abortRequested: false,
    metadata: {},
    createdAt: now,
    updatedAt: now,
  };
  await ctx.store.transaction(async (tx) => {
    // A start never touches an existing thread: it may be paused on a person, and a second run
    // with new input would fail it and strand its requests.
    if (!(await tx.insertThread(row))) throw new ThreadExistsError(t.id);
    await tx.enqueueJob({
      id: `job_start_${t.id}`,
      kind: 'resume',
      threadId: t.id,
      requestId: null,
      payload: { start: true, input: t.input },
      runAt: t.recoverAt,
      createdAt: now,
    });
  });
  return { ...row, leaseOwner: null, leaseUntil: null };
}

/** {@link ThreadOps.abort}: a paused thread ends now, a running one is flagged to stop. */
async function abortThread(ctx: EngineContext, threadId: string, by: string): Promise<ThreadRow> {
  const { store } = ctx;
  const now = ctx.now();
  const thread = await store.getThread(threadId);
  if (!thread)
    throw new InterlockUsageError('thread_not_found', `Thread ${threadId} does not exist.`, {
      details: { threadId },
    });
  await commitWithEvents(
    ctx,
    async (tx) => {
      if (thread.status === 'interrupted') {
        // Paused: it stops now, and its open requests (pending or authorized) are cancelled with it.
        await endThread(
          tx,
          threadId,
          {
            status: 'aborted',
            actor: by,
            reason: 'the thread was aborted',
            payload: { requested: true, stoppedNow: true },
          },
          now,
        );
      } else {
        // Running: the run stops at its next boundary and cancels what is open then.
        await tx.updateThread(threadId, { abortRequested: true }, now);
        await tx.appendAudit(
          [{ type: 'aborted', actor: by, threadId, payload: { requested: true, stoppedNow: false } }],
          now,
        );
      }
    },
    (): EngineEvent[] => [
      { type: 'thread.status', threadId, status: thread.status === 'interrupted' ? 'aborted' : thread.status },
    ],
  );
  return thread;
}

/** Build the thread operations over the engine's context. */
export function threadOps(ctx: EngineContext): ThreadOps {
  const { store } = ctx;
  return {
    ...pick(store, [
      'getThread',
      'listMessages',
      'loadLatest',
      'claimThread',
      'renewThreadLease',
      'releaseThread',
    ] as const),
    holdLease: (threadId, owner, leaseMs) => holdLease(ctx, threadId, owner, leaseMs),
    claimAndLoad: (row, owner, leaseUntil, now) =>
      store.batch(async (ops) => {
        const claiming = ops.claimThread(row, owner, leaseUntil, now);
        const loading = ops.loadLatest(row.id);
        loading.catch(() => undefined); // awaited below, after the claim it follows
        return { ...(await claiming), latest: await loading };
      }),
    start: (t) => startThread(ctx, t),
    abort: (threadId, by) => abortThread(ctx, threadId, by),
    cancelOpenRequests: (threadId, actor, reason) =>
      store.transaction((tx) => cancelOpenRequests(tx, threadId, actor, reason, ctx.now())),
  };
}

/** Build the job operations over the engine's context. */
export function jobOps(ctx: EngineContext): JobOps {
  const { store } = ctx;
  return {
    ...pick(store, [
      'claimJobs',
      'renewJobs',
      'completeJob',
      'deferJob',
      'failJob',
      'getJob',
      'listJobs',
      'countJobs',
    ] as const),
    settle(jobId, owner, outcome, audit = []) {
      return store.transaction(async (tx) => {
        const now = ctx.now();
        const ok =
          outcome.status === 'done'
            ? await tx.completeJob(jobId, owner, now)
            : await tx.failJob(
                jobId,
                owner,
                outcome.error,
                outcome.status === 'retry' ? (outcome.retryAt ?? now) : null,
                now,
              );
        if (!ok) return false;
        if (audit.length) await tx.appendAudit(audit, now);
        return true;
      });
    },
    async giveUpResume(job, owner, why) {
      const at = ctx.now();
      await store.transaction(async (tx) => {
        await tx.failJob(job.id, owner, why, null, at);
        // A thread another run holds a live lease on is that run's: it is not marked failed under it.
        const thread = job.threadId ? await tx.getThread(job.threadId) : undefined;
        const heldElsewhere = thread?.leaseOwner && (thread.leaseUntil ?? 0) > at;
        // A framework integration's thread (an MCP gateway's, an adapter's) is run by the app that
        // wrote it: a worker giving up its job fails nothing there, and cancels no approval.
        const integration = typeof thread?.metadata.integration === 'string';
        if (job.threadId && !heldElsewhere && !integration) {
          // Its open requests are cancelled with it: none stays decidable, none stays authorized with no run to come.
          await endThread(
            tx,
            job.threadId,
            {
              status: 'failed',
              actor: `system:${owner}`,
              reason: `the thread failed: ${why}`,
              requestId: job.requestId,
              payload: { resume: true, error: why, attempts: job.attempts },
            },
            at,
          );
        }
      });
    },
  };
}

/** Build the audit operations over the engine's context. */
export function auditOps(ctx: EngineContext): AuditOps {
  const { store } = ctx;
  return {
    ...pick(store, ['listAudit', 'getAuditHeads'] as const),
    record: (events) => store.transaction(async (tx) => void (await tx.appendAudit(events, ctx.now()))),
  };
}

/** Reviewer, session and request reads, passed through. */
export function directOps(store: Store): { reviewers: ReviewerOps; sessions: SessionOps; requests: RequestReads } {
  return {
    reviewers: pick(store, [
      'insertReviewer',
      'getReviewerByTokenHash',
      'getReviewer',
      'listReviewers',
      'revokeReviewer',
      'linkIdentity',
      'getReviewerByIdentity',
      'recordPostedMessage',
      'listStalePostedMessages',
      'listPostedMessages',
    ] as const),
    sessions: pick(store, ['insertSession', 'getSession', 'deleteSession', 'deleteExpiredSessions'] as const),
    requests: pick(store, ['listVoters', 'countPendingByRole'] as const),
  };
}
