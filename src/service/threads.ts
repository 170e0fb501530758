import { InterlockError, InterlockUsageError, newId, NotFoundError, ValidationError } from '../core/index.ts';
import type { Interrupt } from '../agent/index.ts';
import type { Interlock, ThreadRunner } from '../engine/index.ts';
import type { ThreadsAdapter, ThreadView } from '../server/index.ts';

export { ThreadExistsError } from '../engine/index.ts';

/** Options of {@link createThreadsAdapter}. */
export interface ThreadsAdapterOptions {
  /**
   * When a worker takes over a new thread whose run has not finished, e.g.
   * because this process died (default: the engine's `leaseMs`).
   */
  recoverAfterMs?: number;
}

/**
 * Starts agent runs for the HTTP API. A start returns at once (202): the
 * thread row exists before the response, and the run continues in the
 * background until it ends or pauses. A new thread is committed together with
 * a `resume` job due after `recoverAfterMs` that carries its input: if this
 * process dies (or the run fails) before the thread pauses or ends, a worker
 * runs it again from its last checkpoint, or from the input when nothing was
 * saved yet, with the worker's retries and backoff. A thread acknowledged with
 * 202 is therefore never left running with no one to finish it.
 */
export function createThreadsAdapter(
  interlock: Interlock,
  agents: ReadonlyMap<string, ThreadRunner>,
  log: (msg: string) => void = console.error,
  opts: ThreadsAdapterOptions = {},
): ThreadsAdapter & { idle(): Promise<void> } {
  const running = new Set<Promise<unknown>>();
  const recoverAfterMs = opts.recoverAfterMs ?? interlock.leaseMs;
  return {
    async start(agentName, input, threadId) {
      const agent = agents.get(agentName);
      if (!agent) throw new NotFoundError('agent', agentName);
      const text = inputText(input);
      checkThreadId(threadId);
      const id = threadId ?? newId<string>('thr');
      // The row exists before the 202, so a GET right after finds the thread; the run takes its own lease.
      // With it, the recovery job (see above): it finds the thread paused or ended in the usual case, and does nothing.
      const thread = await interlock.threads.start({
        id,
        agent: agent.name,
        agentVersion: agent.version,
        input: text,
        recoverAt: interlock.now() + recoverAfterMs,
      });
      const p = agent
        .invoke(text, { threadId: id })
        .then(
          () => undefined,
          (err: unknown) => {
            const message = err instanceof Error ? err.message : String(err);
            if (err instanceof InterlockError && err.code === 'lease_lost')
              log(`thread ${id}: another run took the thread over (${message}); it carries on`);
            else log(`thread ${id}: the run stopped (${message}); a worker will retry it from its last checkpoint`);
          },
        )
        .finally(() => running.delete(p));
      running.add(p);
      return { threadId: id, status: thread.status };
    },
    get: (threadId) => threadView(interlock, threadId),
    abort: (threadId) => abortThread(interlock, agents, threadId),
    async idle() {
      while (running.size) await Promise.allSettled([...running]);
    },
  };
}

/** The user message a start carries: a non-empty string, or `{ text }`. */
function inputText(input: unknown): string {
  const text =
    typeof input === 'string'
      ? input
      : typeof (input as { text?: unknown })?.text === 'string'
        ? (input as { text: string }).text
        : undefined;
  if (text === undefined || text.length === 0)
    throw new ValidationError('"input" must be the user message: a non-empty string or { text }.', [
      { path: 'input', message: 'expected text' },
    ]);
  return text;
}

/** Refuse a thread id with a dot, the form of a sub-agent's thread. */
function checkThreadId(threadId: string | undefined): void {
  // A sub-agent's thread is `<root>.<call id>`: an id with a dot could squat a tree's child (its
  // tree would then read and fail through a thread that is not its own).
  if (threadId !== undefined && threadId.includes('.'))
    throw new ValidationError(
      `Thread ids started over the API may not contain ".": "${threadId}" has the form of a sub-agent's thread. Choose another id, or omit it.`,
      [{ path: 'threadId', message: 'no "." (reserved for sub-agent threads)' }],
    );
}

/** A thread as the API shows it: its messages and its pending approvals. */
async function threadView(interlock: Interlock, threadId: string): Promise<ThreadView | undefined> {
  const thread = await interlock.threads.getThread(threadId);
  if (!thread) return undefined;
  const [messages, pending] = await Promise.all([
    interlock.threads.listMessages(threadId),
    // Planted checks too: a thread's pending list that left them out would tell them apart.
    interlock.listRequests({ threadId, status: 'pending', limit: 100 }),
  ]);
  return {
    threadId,
    status: thread.status,
    agent: thread.agent,
    agentVersion: thread.agentVersion,
    createdAt: new Date(thread.createdAt).toISOString(),
    updatedAt: new Date(thread.updatedAt).toISOString(),
    messages,
    pendingApprovals: pending.items.map((r) => ({
      id: r.id,
      tool: r.tool,
      args: r.args,
      tier: r.tier,
      role: r.role,
      reason: r.reason,
      expiresAt: new Date(r.expiresAt).toISOString(),
    })),
  };
}

/** Abort a root thread through its agent (its sub-agents stop with it); a sub-agent's thread is refused. */
async function abortThread(
  interlock: Interlock,
  agents: ReadonlyMap<string, ThreadRunner>,
  threadId: string,
): Promise<{ threadId: string; status: string }> {
  const thread = await interlock.threads.getThread(threadId);
  if (!thread) throw new NotFoundError('thread', threadId);
  const root = thread.metadata.rootThreadId;
  if (typeof root === 'string' && root !== threadId)
    throw new InterlockUsageError(
      'child_thread',
      `Thread ${threadId} is a sub-agent's, part of the tree of thread ${root}: only the root is aborted, and its sub-agents stop with it. Abort ${root} (POST /api/v1/threads/${root}/abort).`,
      { details: { threadId, rootThreadId: root } },
    );
  const agent = agents.get(thread.agent);
  if (!agent) throw new NotFoundError('agent', thread.agent);
  await agent.abort(threadId);
  return { threadId, status: (await interlock.threads.getThread(threadId))?.status ?? 'aborted' };
}

/** A user-facing line for each interrupt, for logs and demos. */
export function describeInterrupts(interrupts: Interrupt[]): string {
  return interrupts.map((i) => `${i.name} (${i.tier}, ${i.role}): ${i.reason}`).join('; ');
}
