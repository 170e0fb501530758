import { newId, NotFoundError, ValidationError } from '../core/index.ts';
import type { Agent, Interrupt } from '../agent/index.ts';
import type { Interlock } from '../engine/index.ts';
import type { ThreadsAdapter, ThreadView } from '../server/index.ts';

/**
 * Starts agent runs for the HTTP API. A start returns at once (202): the
 * thread row exists before the response, and the run continues in the
 * background until it ends or pauses.
 */
export function createThreadsAdapter(interlock: Interlock, agents: ReadonlyMap<string, Agent>, log: (msg: string) => void = console.error): ThreadsAdapter & { idle(): Promise<void> } {
  const running = new Set<Promise<unknown>>();
  return {
    async start(agentName, input, threadId) {
      const agent = agents.get(agentName);
      if (!agent) throw new NotFoundError('agent', agentName);
      const text = typeof input === 'string' ? input : typeof (input as { text?: unknown })?.text === 'string' ? (input as { text: string }).text : undefined;
      if (text === undefined || text.length === 0) throw new ValidationError('"input" must be the user message: a non-empty string or { text }.', [{ path: 'input', message: 'expected text' }]);
      const id = threadId ?? newId<string>('thr');
      const now = interlock.context.now();
      // The row exists before the 202, so a GET right after finds the thread; the run takes its own lease.
      const thread = await interlock.store.transaction(async (tx) => {
        const existing = await tx.getThread(id);
        if (existing) return existing;
        const row = { id, agent: agent.name, agentVersion: agent.version, status: 'running' as const, messageCount: 0, abortRequested: false, metadata: {}, createdAt: now, updatedAt: now };
        await tx.insertThread(row);
        return row;
      });
      const p = agent
        .invoke(text, { threadId: id })
        .catch(async (err: unknown) => {
          log(`thread ${id} failed: ${err instanceof Error ? err.message : String(err)}`);
          await interlock.store.transaction(async (tx) => {
            await tx.updateThread(id, { status: 'failed', leaseOwner: null }, interlock.context.now());
            await tx.appendAudit([{ type: 'failed', actor: `agent:${agent.name}`, threadId: id, payload: { error: err instanceof Error ? err.message : String(err) } }], interlock.context.now());
          });
        })
        .finally(() => running.delete(p));
      running.add(p);
      return { threadId: id, status: thread.status === 'interrupted' ? 'interrupted' : 'running' };
    },
    async get(threadId) {
      const thread = await interlock.store.getThread(threadId);
      if (!thread) return undefined;
      const [messages, pending] = await Promise.all([interlock.store.listMessages(threadId), interlock.store.listRequests({ threadId, status: 'pending', limit: 100 })]);
      const view: ThreadView = {
        threadId,
        status: thread.status,
        agent: thread.agent,
        agentVersion: thread.agentVersion,
        createdAt: new Date(thread.createdAt).toISOString(),
        updatedAt: new Date(thread.updatedAt).toISOString(),
        messages,
        pendingApprovals: pending.items.map((r) => ({ id: r.id, tool: r.tool, args: r.args, tier: r.tier, role: r.role, reason: r.reason, expiresAt: new Date(r.expiresAt).toISOString() })),
      };
      return view;
    },
    async abort(threadId) {
      const thread = await interlock.store.getThread(threadId);
      if (!thread) throw new NotFoundError('thread', threadId);
      const agent = agents.get(thread.agent);
      if (!agent) throw new NotFoundError('agent', thread.agent);
      await agent.abort(threadId);
      return { threadId, status: (await interlock.store.getThread(threadId))?.status ?? 'aborted' };
    },
    async idle() {
      while (running.size) await Promise.allSettled([...running]);
    },
  };
}

/** A user-facing line for each interrupt, for logs and demos. */
export function describeInterrupts(interrupts: Interrupt[]): string {
  return interrupts.map((i) => `${i.name} (${i.tier}, ${i.role}): ${i.reason}`).join('; ');
}
