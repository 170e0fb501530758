import { z } from 'zod';
import { ConfigError, InterlockUsageError, newId, NotFoundError, type ApprovalRequest } from '../core/index.ts';
import { modelTexts, type PreClaim, type ToolSchemaEntry } from '../engine/index.ts';
import type { ThreadClaim } from '../store/types.ts';
import type { Message } from './messages.ts';
import { Run, type AgentRuntime } from './run.ts';
import { initialState, readState, sameMajor } from './state.ts';
import { runsApprovedCall } from './claim-ahead.ts';
import type { Agent, AgentOptions, AgentResult, InvokeOptions } from './types.ts';
import type { Tool } from './tool.ts';

export type { Agent } from './types.ts';
import {
  abortTree,
  childThreadsOf,
  delegationOf,
  internalsOf,
  INTERNALS,
  type AgentInternals,
  type TreeInfo,
} from './delegation.ts';

/** A run's hold on a thread: whether the lease is ours, and the thread row as the claim left it. */
type Claim = ThreadClaim;

/** What an agent's runs share: its runtime, the engine, the lease a run takes and the versions it resumes. */
interface AgentContext {
  rt: AgentRuntime;
  il: AgentOptions['interlock'];
  leaseMs: number;
  compatible: (from: string, to: string) => boolean;
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
  checkOptions(opts);
  const ctx: AgentContext = {
    rt: runtimeOf(opts),
    il: opts.interlock,
    leaseMs: opts.leaseMs ?? opts.interlock.leaseMs,
    compatible: opts.compatibleVersions ?? sameMajor,
  };
  const il = opts.interlock;
  const threads = il.threads;
  const agent: Agent = {
    name: opts.name,
    version: opts.version,
    invoke: (input, o) => invoke(ctx, input, o),
    resume: (threadId) => invoke(ctx, null, { threadId }),
    async abort(threadId, by = 'operator') {
      // Paused: it stops now, its open requests cancelled with it; running: it stops at its next boundary.
      if (!(await threads.getThread(threadId))) throw new NotFoundError('thread', threadId);
      await threads.abort(threadId, by);
      // Its sub-agents' threads stop with it.
      const { checkpoint } = await threads.loadLatest(threadId);
      for (const child of childThreadsOf(checkpoint?.state)) await abortTree(il, child, by);
    },
    async messages(threadId) {
      return (await threads.listMessages(threadId)) as Message[];
    },
  };
  const internals: AgentInternals = {
    rt: ctx.rt,
    runChild: (input, childThreadId, tree) => invoke(ctx, input, { threadId: childThreadId }, tree),
    abortTree: (threadId, by) => abortTree(il, threadId, by),
  };
  Object.defineProperty(agent, INTERNALS, { value: internals, enumerable: false });
  return agent;
}

/** The options an agent cannot run without, refused when it is built rather than at its first run. */
function checkOptions(opts: AgentOptions): void {
  if (!opts?.interlock)
    throw new ConfigError('createAgent requires "interlock": the engine from createInterlock({ store, policy }).');
  if (!opts.model || typeof opts.model.doGenerate !== 'function') {
    throw new ConfigError(
      'createAgent requires "model": an AI SDK language model (e.g. openai("gpt-4o")) or scriptedModel() from interlock/testing.',
    );
  }
  if (!opts.name || !opts.version)
    throw new ConfigError('createAgent requires "name" and "version" (recorded on threads and checkpoints).');
}

/** The agent's runtime: its tools by name (registered with the engine) and the defaults a run uses. */
function runtimeOf(opts: AgentOptions): AgentRuntime {
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
  opts.interlock.registerTools(Object.fromEntries(opts.tools.map((t) => [t.name, toolEntry(t)])));
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
    texts: modelTexts(opts.texts),
    interruptRole: opts.interruptRole ?? 'supervisor',
    maxIterations: opts.maxIterations ?? 20,
    peer: (name) => findPeer(rt, name),
  };
  return rt;
}

/** The thread row a first run creates, and the lease a run takes (see {@link claim}). */
function claimSpec(ctx: AgentContext, threadId: string, runOwner: string, tree?: TreeInfo) {
  const { opts } = ctx.rt;
  const now = ctx.il.now();
  const row = {
    id: threadId,
    agent: opts.name,
    agentVersion: opts.version,
    status: 'running' as const,
    messageCount: 0,
    abortRequested: false,
    // A child thread knows its tree: the worker resumes the root, the UI nests it.
    metadata: tree ? { ...tree } : {},
    createdAt: now,
    updatedAt: now,
  };
  return { row, owner: runOwner, leaseUntil: now + ctx.leaseMs, now };
}

/** Take the thread's lease for one run (creating the thread on first use). */
function claim(ctx: AgentContext, threadId: string, runOwner: string, tree?: TreeInfo): Promise<Claim> {
  const c = claimSpec(ctx, threadId, runOwner, tree);
  return ctx.il.threads.claimAndLoad(c.row, c.owner, c.leaseUntil, c.now);
}

/** Start a run: with the lease `claimed` already taken (in a decision's transaction), or take it now. */
async function start(
  ctx: AgentContext,
  threadId: string,
  runOwner: string,
  taken?: Claim,
  known?: Map<string, ApprovalRequest>,
  tree?: TreeInfo,
): Promise<Run | AgentResult> {
  const { rt, il } = ctx;
  const { opts } = rt;
  const threads = il.threads;
  const now = il.now();
  const { claimed, thread, latest } = taken ?? (await claim(ctx, threadId, runOwner, tree));
  if (thread.agent !== opts.name) {
    if (claimed) await threads.releaseThread(threadId, runOwner, now);
    throw new InterlockUsageError(
      'wrong_agent',
      `Thread ${threadId} belongs to agent "${thread.agent}", not "${opts.name}".`,
      { details: { threadId } },
    );
  }
  const root = thread.metadata.rootThreadId;
  if (!tree && typeof root === 'string') {
    // One run per tree: a child thread moves only when its root runs it.
    if (claimed) await threads.releaseThread(threadId, runOwner, now);
    throw new InterlockUsageError(
      'child_thread',
      `Thread ${threadId} is part of the tree of thread ${root}; run or resume ${root} instead.`,
      { details: { threadId, rootThreadId: root } },
    );
  }
  let run: Run;
  try {
    const { checkpoint: cp, messages } = latest ?? (await threads.loadLatest(threadId));
    const state = cp
      ? readState(cp.state, opts.version, ctx.compatible, threadId)
      : initialState(opts.version, opts.system);
    run = new Run(rt, threadId, runOwner, state, messages as Message[], thread, known);
    run.tree = tree;
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

/**
 * The invoke's in-process answers, decided like any reviewer's (same checks, same audit, same ledger).
 * The last decision's transaction also takes the lease for the run that follows: one commit, not two.
 */
async function answerResponses(
  ctx: AgentContext,
  threadId: string,
  runOwner: string,
  o: InvokeOptions,
): Promise<{ claimed: Claim | undefined; known: Map<string, ApprovalRequest>; execution?: PreClaim }> {
  let claimed: Claim | undefined;
  let execution: PreClaim | undefined;
  // Requests this invoke resolved, as their decisions left them: the run reads them from here, not the store.
  const known = new Map<string, ApprovalRequest>();
  const responses = Object.entries(o.responses ?? {});
  if (!responses.length) return { claimed, known };
  if (!o.reviewer)
    throw new ConfigError(
      'invoke: "responses" need "reviewer" ({ id, roles }): every decision is recorded with who made it.',
    );
  for (const [i, [id, resp]] of responses.entries()) {
    const last = i === responses.length - 1;
    const spec = claimSpec(ctx, threadId, runOwner);
    // Bound to the request as it is, and refused unless it is an interrupt of this thread's tree.
    const d = await ctx.il.answer(id, resp, o.reviewer, {
      answering: threadId,
      ...(last ? { claimThread: { row: spec.row, owner: spec.owner, leaseUntil: spec.leaseUntil } } : {}),
      // The approved call runs first thing: its claim commits with the decision. Not when the invoke
      // brings app state: that must be durable with the claim, which the run's own claim does.
      ...(last && o.app === undefined
        ? {
            claimExecution: {
              leaseMs: ctx.leaseMs,
              when: (req: ApprovalRequest, c: ThreadClaim) => runsApprovedCall(ctx.rt, ctx.compatible, req, c),
            },
          }
        : {}),
    });
    if (d.claim) claimed = d.claim;
    if (d.execution) execution = d.execution;
    // Only a resolved request is final for the run (a quorum still pending may gain votes meanwhile).
    if (d.outcome === 'authorized' || d.outcome === 'rejected' || d.outcome === 'responded') known.set(id, d.request);
  }
  return { claimed, known, ...(execution ? { execution } : {}) };
}

/** One run of the thread: the invoke's answers decided, the lease taken and held, the loop run to its next stop. */
async function invoke(
  ctx: AgentContext,
  input: string | null,
  o: InvokeOptions = {},
  tree?: TreeInfo,
): Promise<AgentResult> {
  const threads = ctx.il.threads;
  const threadId = o.threadId ?? newId<string>('thr');
  // Each run leases the thread under its own name, not the process's: a lease
  // already "ours" is re-granted, so two runs in one process (a worker handling
  // two resume jobs of a thread) would otherwise both run the loop.
  const runOwner = `${ctx.il.owner}:${newId<string>('run')}`;
  const { claimed, known, execution } = await answerResponses(ctx, threadId, runOwner, o);
  let started: Run | AgentResult;
  try {
    started = await start(ctx, threadId, runOwner, claimed, claimed ? known : undefined, tree);
  } catch (err) {
    // The run stopped before its loop (an incompatible checkpoint, a wrong agent): the claim is given back.
    if (execution) await ctx.il.releaseClaim(execution).catch(() => undefined);
    throw err;
  }
  if (!(started instanceof Run)) {
    if (execution) await ctx.il.releaseClaim(execution);
    return started;
  }
  started.preclaim = execution;
  // A run may outlive its lease (a slow model or tool): it is renewed while the run goes on.
  const lease = threads.holdLease(threadId, runOwner, ctx.leaseMs);
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
    // An execution claimed with the decision and not run is given back, then the lease (if still ours) so
    // another attempt can run the thread; the checkpoint already holds what finished.
    await started.releaseUnusedClaim().catch(() => undefined);
    await lease.release();
    throw err;
  } finally {
    lease.stop();
  }
}

/** An agent `rt` can hand off to, directly or through the agents it hands off to (breadth first). */
function findPeer(rt: AgentRuntime, name: string): AgentRuntime | undefined {
  const seen = new Set<AgentRuntime>([rt]);
  const queue = [rt];
  while (queue.length) {
    const at = queue.shift()!;
    for (const t of at.tools.values()) {
      const d = delegationOf(t);
      if (d?.kind !== 'handoff') continue;
      const next = internalsOf(d.agent, 'handoff()').rt;
      if (next.opts.name === name) return next;
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return undefined;
}

/** What the engine keeps of a tool: its schema, its subject, and its evidence when it may be read again. */
function toolEntry(t: Tool): ToolSchemaEntry {
  const evidence = t.evidence?.bind(t);
  return {
    schema: t.schema,
    description: t.description,
    ...(t.subject ? { subject: t.subject } : {}),
    ...(t.refreshEvidence && evidence ? { facts: (args, ctx) => evidence(args, ctx) } : {}),
  };
}
