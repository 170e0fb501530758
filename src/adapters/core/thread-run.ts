import { ConfigError, InterlockUsageError, newId, type ApprovalRequest } from '../../core/index.ts';
import type {
  CheckpointInput,
  Interlock,
  PauseItem,
  PauseResult,
  RunnerInterrupt,
  RunnerResult,
  ThreadRef,
} from '../../engine/index.ts';
import { interruptsOf, runOwner } from './results.ts';

/** The saved state of an adapter thread: what its framework needs to continue. */
export interface AdapterState {
  /** Which adapter wrote it (`ai-sdk`, `openai-agents`). */
  adapter: string;
  /** Gated calls the run stopped on: the framework's call id and Interlock's request. */
  waiting: Array<{ toolCallId: string; requestId: string; approvalId?: string }>;
  /** Framework state beyond the messages (the OpenAI SDK's serialized RunState). */
  framework?: unknown;
  /**
   * Results of approved calls that ran while a sibling of their step still waited (the AI SDK's
   * `tool-result` parts): handed to the framework with the step's resume instead of running again.
   */
  settled?: Array<{ toolCallId: string; part: unknown }>;
  /** How many items of the framework's run history are saved as the thread's messages (OpenAI Agents). */
  seen?: number;
}

/** Version of {@link AdapterState}'s layout, kept with each checkpoint. */
export const ADAPTER_STATE_VERSION = 1;

/** A run of an adapter thread that holds the thread's lease. */
export interface ThreadRun {
  readonly ref: ThreadRef;
  /** The state saved at the last checkpoint (undefined for a new thread). */
  readonly state: AdapterState | undefined;
  /** The messages saved so far, oldest first. */
  readonly messages: unknown[];
  /** Save new messages and state without pausing; gives the lease back. */
  finish(newMessages: readonly unknown[], state: AdapterState, status: 'completed' | 'interrupted'): Promise<void>;
  /** Save new messages and state and open one request per gated call, in one transaction; gives the lease back. */
  pause(
    newMessages: readonly unknown[],
    state: AdapterState,
    items: PauseItem[],
    proposer: string,
  ): Promise<PauseResult>;
  /** Give the lease back without saving (an error stopped the run; it can run again from the last checkpoint). */
  release(): Promise<void>;
}

/**
 * Take a thread's run lease for an adapter run and load what was saved, or
 * return `undefined` when another run holds the thread (the caller reports
 * `busy`). The lease is renewed every third of its length until the run
 * saves or releases; one run at a time per thread, as for native agents.
 */
export async function openThreadRun(
  il: Interlock,
  t: { threadId: string; agent: string; version: string; owner: string; integration: string },
): Promise<ThreadRun | undefined> {
  const now = il.now();
  // The lease and what the run starts from, in one round trip.
  const { claimed, thread, latest } = await il.threads.claimAndLoad(
    {
      id: t.threadId,
      agent: t.agent,
      agentVersion: t.version,
      status: 'running',
      messageCount: 0,
      abortRequested: false,
      // Which integration wrote the thread: its app may resume it itself, so a worker without its
      // runner never fails it (src/worker/resume.ts).
      metadata: { integration: t.integration },
      createdAt: now,
      updatedAt: now,
    },
    t.owner,
    now + il.leaseMs,
    now,
  );
  if (!claimed) return undefined;
  if (thread.agent !== t.agent) {
    await il.threads.releaseThread(t.threadId, t.owner, il.now());
    throw new InterlockUsageError(
      'wrong_agent',
      `Thread ${t.threadId} belongs to agent "${thread.agent}", not "${t.agent}".`,
      {
        details: { threadId: t.threadId },
      },
    );
  }
  const lease = il.threads.holdLease(t.threadId, t.owner, il.leaseMs);
  const loaded =
    latest ??
    (await il.threads.loadLatest(t.threadId).catch(async (err: unknown) => {
      await lease.release();
      throw err;
    }));
  const ref: ThreadRef = { id: t.threadId, agent: t.agent, agentVersion: t.version, leaseOwner: t.owner };
  const cp = (newMessages: readonly unknown[], state: AdapterState): CheckpointInput => ({
    newMessages,
    state: state as unknown as Record<string, unknown>,
    schemaVersion: ADAPTER_STATE_VERSION,
  });
  return {
    ref,
    state: loaded.checkpoint?.state as AdapterState | undefined,
    messages: loaded.messages,
    async finish(newMessages, state, status) {
      lease.stop();
      await il.checkpoint(ref, cp(newMessages, state), status, [], { releaseLease: true });
    },
    async pause(newMessages, state, items, proposer) {
      lease.stop();
      return il.pause({ thread: ref, checkpoint: cp(newMessages, state), items, proposer, releaseLease: true });
    },
    release: () => lease.release(),
  };
}

/** What a run returns when another run holds the thread. */
export function busyResult(threadId: string): RunnerResult {
  return { threadId, stopReason: 'busy', text: '', interrupts: [] };
}

/**
 * Run `fn` holding the thread's lease: `busy` (as `onBusy` builds it) when another run holds it;
 * with `fresh`, a thread still waiting on decisions is refused (`thread_interrupted`: resume it
 * instead). An error gives the lease back — nothing since the last checkpoint is kept, and the
 * thread can run again from it.
 */
export async function withThreadRun<R>(
  il: Interlock,
  t: { threadId: string; agent: string; version: string; integration: string; fresh?: boolean },
  onBusy: () => R,
  fn: (run: ThreadRun) => Promise<R>,
): Promise<R> {
  const run = await openThreadRun(il, { ...t, owner: runOwner(il) });
  if (!run) return onBusy();
  try {
    if (t.fresh && run.state?.waiting.length) {
      throw new InterlockUsageError(
        'thread_interrupted',
        `Thread ${t.threadId} is waiting on ${run.state.waiting.length} decision(s); decide them, then call resume("${t.threadId}").`,
        { details: { threadId: t.threadId } },
      );
    }
    return await fn(run);
  } catch (err) {
    await run.release().catch(() => undefined);
    throw err;
  }
}

/**
 * The end of a framework run that holds its thread: pause with the calls that now need a person (their
 * requests open with the run's new messages and state, in one transaction), or save and finish —
 * `interrupted` while calls of earlier steps still wait, `completed` otherwise. The result lists every
 * request the run waits on: those it already knew of, then the new ones.
 */
export async function settleRun<R>(
  run: ThreadRun,
  o: {
    threadId: string;
    newMessages: readonly unknown[];
    state: AdapterState;
    items: PauseItem[];
    known: readonly ApprovalRequest[];
    proposer: string;
    text: string;
    result: R;
  },
): Promise<{ threadId: string; stopReason: string; text: string; interrupts: RunnerInterrupt[]; result: R }> {
  const { threadId, text, result } = o;
  if (o.items.length > 0) {
    const paused = await run.pause(o.newMessages, o.state, o.items, o.proposer);
    return {
      threadId,
      stopReason: 'interrupt',
      text,
      interrupts: interruptsOf([...o.known, ...paused.requests]),
      result,
    };
  }
  const waits = o.state.waiting.length > 0;
  await run.finish(o.newMessages, o.state, waits ? 'interrupted' : 'completed');
  return { threadId, stopReason: waits ? 'interrupt' : 'end_turn', text, interrupts: interruptsOf(o.known), result };
}

/**
 * An adapter's runs of its threads, each holding the thread's lease ({@link withThreadRun}): `run(threadId,
 * fresh, fn)`. A thread another run holds answers `busy` ({@link busyResult}, or what `onBusy` adds to it).
 */
export function leasedRuns<R>(
  il: Interlock,
  t: { agent: string; version: string; integration: string },
  onBusy: (threadId: string) => R = (threadId) => busyResult(threadId) as R,
): (threadId: string, fresh: boolean, fn: (run: ThreadRun) => Promise<R>) => Promise<R> {
  return (threadId, fresh, fn) => withThreadRun<R>(il, { ...t, threadId, fresh }, () => onBusy(threadId), fn);
}

/**
 * The thread a new turn runs on, once its input is checked: a non-empty string (`what` names it in the
 * refusal), on `opts.threadId` or a new thread.
 */
export function turnThread(input: unknown, opts: { threadId?: string } | undefined, what = 'the user message'): string {
  if (typeof input !== 'string' || input.length === 0)
    throw new ConfigError(`invoke needs ${what}: a non-empty string.`);
  return opts?.threadId ?? newId<string>('thr');
}
