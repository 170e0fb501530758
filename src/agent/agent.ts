import { z } from 'zod';
import { ConfigError, InterlockUsageError, newId, NotFoundError, type ApprovalRequest } from '../core/index.ts';
import type { ThreadRow } from '../store/types.ts';
import type { Message } from './messages.ts';
import { Run, type AgentRuntime } from './run.ts';
import { initialState, readState, sameMajor } from './state.ts';
import type { AgentOptions, AgentResult, InvokeOptions } from './types.ts';

/** A run's hold on a thread: whether the lease is ours, and the thread row as the claim left it. */
interface Claim {
  claimed: boolean;
  thread: ThreadRow;
}

/** An agent whose tool calls pass the policy gate and pause durably for people. */
export interface Agent {
  readonly name: string;
  readonly version: string;
  /**
   * Run the loop on a thread: with `input` a new user turn, with `responses`
   * answers to its interrupts, with neither a plain resume. Returns when the
   * turn ends or the thread pauses (`stopReason: 'interrupt'`).
   */
  invoke(input: string | null, opts?: InvokeOptions): Promise<AgentResult>;
  /** Continue a thread after reviewers decided (what the resume worker calls). */
  resume(threadId: string): Promise<AgentResult>;
  /** Stop a thread at its next boundary; a paused thread stops now and its open requests are cancelled. */
  abort(threadId: string, by?: string): Promise<void>;
  /** The stored conversation of a thread. */
  messages(threadId: string): Promise<Message[]>;
}

/**
 * Create an agent.
 * @example
 * const agent = createAgent({ name: 'support', version: '1.0.0', model, system: 'You help customers.',
 *   tools: [lookUpOrder, issueRefund], interlock });
 * const r = await agent.invoke('I need a refund for ORD-999', { threadId: 'thr_1' });
 * if (r.stopReason === 'interrupt') console.log(r.interrupts[0].message);
 */
export function createAgent(opts: AgentOptions): Agent {
  if (!opts?.interlock)
    throw new ConfigError('createAgent requires "interlock": the engine from createInterlock({ store, policy }).');
  if (!opts.model || typeof opts.model.doGenerate !== 'function') {
    throw new ConfigError(
      'createAgent requires "model": an AI SDK language model (e.g. openai("gpt-4o")) or scriptedModel() from interlock/testing.',
    );
  }
  if (!opts.name || !opts.version)
    throw new ConfigError('createAgent requires "name" and "version" (recorded on threads and checkpoints).');
  const tools = new Map(opts.tools.map((t) => [t.name, t]));
  if (tools.size !== opts.tools.length)
    throw new ConfigError('createAgent: two tools share a name; tool names must be unique.');
  for (const t of opts.tools) {
    if (!opts.interlock.policy.tools.has(t.name)) {
      // Not an error: the gate blocks it. Said early so a missing rule is not a surprise at run time.
      process.emitWarning(
        `Interlock: tool "${t.name}" has no policy rules; every call of it will be blocked. Add rules for it to the policy.`,
      );
    }
  }
  opts.interlock.registerTools(
    Object.fromEntries(opts.tools.map((t) => [t.name, { schema: t.schema, description: t.description }])),
  );
  const rt: AgentRuntime = {
    opts,
    tools,
    toolDefs: opts.tools.map((t) => ({
      type: 'function' as const,
      name: t.name,
      description: t.description,
      inputSchema: z.toJSONSchema(t.schema),
    })),
    identity: opts.identity ?? `agent:${opts.name}`,
    interruptRole: opts.interruptRole ?? 'supervisor',
    maxIterations: opts.maxIterations ?? 20,
  };
  const il = opts.interlock;
  const threads = il.threads;
  const leaseMs = opts.leaseMs ?? opts.interlock.leaseMs;
  const compatible = opts.compatibleVersions ?? sameMajor;

  /** The thread row a first run creates, and the lease a run takes (see {@link claim}). */
  function claimSpec(threadId: string, runOwner: string) {
    const now = il.now();
    const row = {
      id: threadId,
      agent: opts.name,
      agentVersion: opts.version,
      status: 'running' as const,
      messageCount: 0,
      abortRequested: false,
      metadata: {},
      createdAt: now,
      updatedAt: now,
    };
    return { row, owner: runOwner, leaseUntil: now + leaseMs, now };
  }

  /** Take the thread's lease for one run (creating the thread on first use). */
  function claim(threadId: string, runOwner: string): Promise<Claim> {
    const c = claimSpec(threadId, runOwner);
    return threads.claimThread(c.row, c.owner, c.leaseUntil, c.now);
  }

  /** Start a run: with the lease `claimed` already taken (in a decision's transaction), or take it now. */
  async function start(
    threadId: string,
    runOwner: string,
    taken?: Claim,
    known?: Map<string, ApprovalRequest>,
  ): Promise<Run | AgentResult> {
    const now = il.now();
    const { claimed, thread } = taken ?? (await claim(threadId, runOwner));
    if (thread.agent !== opts.name) {
      if (claimed) await threads.releaseThread(threadId, runOwner, now);
      throw new InterlockUsageError(
        'wrong_agent',
        `Thread ${threadId} belongs to agent "${thread.agent}", not "${opts.name}".`,
        { details: { threadId } },
      );
    }
    let run: Run;
    try {
      const { checkpoint: cp, messages } = await threads.loadLatest(threadId);
      const state = cp
        ? readState(cp.state, opts.version, compatible, threadId)
        : initialState(opts.version, opts.system);
      run = new Run(rt, threadId, runOwner, state, messages as Message[], thread, known);
    } catch (err) {
      // A checkpoint this build refuses (schema or agent version) must not leave the
      // thread leased: a compatible build has to be able to resume it right away.
      if (claimed) await threads.releaseThread(threadId, runOwner, now).catch(() => undefined);
      throw err;
    }
    if (!claimed) return run.result('busy', thread.status);
    if (thread.status === 'aborted' || thread.status === 'failed') {
      await threads.releaseThread(threadId, runOwner, now);
      return run.result('aborted', thread.status);
    }
    return run;
  }

  async function invoke(input: string | null, o: InvokeOptions = {}): Promise<AgentResult> {
    const threadId = o.threadId ?? newId<string>('thr');
    // Each run leases the thread under its own name, not the process's: a lease
    // already "ours" is re-granted, so two runs in one process (a worker handling
    // two resume jobs of a thread) would otherwise both run the loop.
    const runOwner = `${il.owner}:${newId<string>('run')}`;
    let claimed: Claim | undefined;
    // Requests this invoke resolved, as their decisions left them: the run reads them from here, not the store.
    const known = new Map<string, ApprovalRequest>();
    const responses = Object.entries(o.responses ?? {});
    if (responses.length) {
      if (!o.reviewer)
        throw new ConfigError(
          'invoke: "responses" need "reviewer" ({ id, roles }): every decision is recorded with who made it.',
        );
      // In-process answers are decisions like any reviewer's: same checks, same audit, same ledger.
      for (const [i, [id, resp]] of responses.entries()) {
        const req = await il.getRequestOrThrow(id);
        if (req.threadId !== threadId) throw new NotFoundError('interrupt', id);
        // The last decision's transaction also takes the lease for the run that follows: one commit, not two.
        const last = i === responses.length - 1;
        const spec = claimSpec(threadId, runOwner);
        const d = await il.decide(
          id,
          { ...resp, expectedVersion: req.version, actionHash: req.actionHash },
          o.reviewer,
          last ? { claimThread: { row: spec.row, owner: spec.owner, leaseUntil: spec.leaseUntil } } : {},
        );
        if (d.claim) claimed = d.claim;
        // Only a resolved request is final for the run (a quorum still pending may gain votes meanwhile).
        if (d.outcome === 'authorized' || d.outcome === 'rejected' || d.outcome === 'responded')
          known.set(id, d.request);
      }
    }
    const started = await start(threadId, runOwner, claimed, claimed ? known : undefined);
    if (!(started instanceof Run)) return started;
    // A run may outlive its lease (a slow model or tool): renew it while the run goes on.
    const renewal = setInterval(
      () => void threads.renewThreadLease(threadId, runOwner, il.now() + leaseMs).catch(() => undefined),
      Math.max(50, leaseMs / 3),
    );
    renewal.unref();
    try {
      started.mergeApp(o.app);
      if (input !== null) {
        if (started.isWaiting()) {
          throw new InterlockUsageError(
            'thread_interrupted',
            `Thread ${threadId} is waiting on a person; answer its interrupts (responses) or wait for a decision before sending new input.`,
            { details: { threadId } },
          );
        }
        started.addUserInput(input);
      }
      return await started.loop();
    } catch (err) {
      // Give the lease back (if still ours) so another attempt can run the thread; the checkpoint already holds what finished.
      await threads.releaseThread(threadId, runOwner, il.now()).catch(() => undefined);
      throw err;
    } finally {
      clearInterval(renewal);
    }
  }

  return {
    name: opts.name,
    version: opts.version,
    invoke,
    resume: (threadId) => invoke(null, { threadId }),
    async abort(threadId, by = 'operator') {
      // Paused: it stops now, its open requests cancelled with it; running: it stops at its next boundary.
      if (!(await threads.getThread(threadId))) throw new NotFoundError('thread', threadId);
      await threads.abort(threadId, by);
    },
    async messages(threadId) {
      return (await threads.listMessages(threadId)) as Message[];
    },
  };
}
