import { Command } from '@langchain/langgraph';
import type { ApprovalRequest } from '../../core/index.ts';
import type { Interlock, RunnerResult, ThreadRunner } from '../../engine/index.ts';
import { interruptsOf } from '../core/index.ts';
import { requestIdsOf, type InterlockInterrupt } from './decide-call.ts';

/** A compiled `createAgent` agent (or LangGraph graph) as the runner needs it. */
export interface ResumableGraph {
  invoke(input: unknown, config: { configurable: { thread_id: string } }): Promise<unknown>;
  getState(config: { configurable: { thread_id: string } }): Promise<{
    /** Nodes still to run: set when a run stopped midway (an error, a crash) or on an interrupt. */
    next?: readonly string[];
    tasks: ReadonlyArray<{ interrupts?: ReadonlyArray<{ id?: string; value?: unknown }> }>;
  }>;
}

/** What a run of a LangChain thread came to. */
export interface LangChainRunResult extends RunnerResult {
  /** The graph's result (undefined when nothing ran). */
  result?: unknown;
}

const config = (threadId: string) => ({ configurable: { thread_id: threadId } });

/** An interrupt of the graph with the requests it waits on: still pending, and decided. */
interface OpenInterrupt {
  id: string;
  pending: ApprovalRequest[];
  decided: string[];
}

/** The graph's open interrupts, each with the requests it waits on still pending (none: all decided). */
async function pendingOf(il: Interlock, agent: ResumableGraph, threadId: string): Promise<OpenInterrupt[]> {
  const state = await agent.getState(config(threadId));
  const open: OpenInterrupt[] = [];
  for (const task of state.tasks)
    for (const i of task.interrupts ?? []) {
      const p = i.value as InterlockInterrupt | undefined;
      if (!i.id || !p?.interlock) continue;
      const entry: OpenInterrupt = { id: i.id, pending: [], decided: [] };
      for (const requestId of requestIdsOf(p)) {
        const outcome = await il.requestOutcome(requestId);
        if (outcome?.state === 'pending') entry.pending.push(outcome.request);
        else entry.decided.push(requestId);
      }
      open.push(entry);
    }
  return open;
}

/** What a graph run came to: an interrupt while any request is open, else the end of the turn. */
async function resultOf(
  il: Interlock,
  agent: ResumableGraph,
  threadId: string,
  result: unknown,
): Promise<LangChainRunResult> {
  const open = await pendingOf(il, agent, threadId);
  const messages = (result as { messages?: Array<{ content?: unknown }> } | undefined)?.messages ?? [];
  const last = messages.at(-1)?.content;
  return {
    threadId,
    stopReason: open.length ? 'interrupt' : 'end_turn',
    text: open.length || typeof last !== 'string' ? '' : last,
    interrupts: interruptsOf(open.flatMap((x) => x.pending)),
    result,
  };
}

/** LangChain's decisions for the decided actions of an interrupt (informational: Interlock's record rules). */
async function resumeValue(il: Interlock, requestIds: string[]) {
  const decisions: unknown[] = [];
  const interlock: unknown[] = [];
  for (const id of requestIds) {
    const outcome = await il.requestOutcome(id);
    const r = outcome.request;
    decisions.push(
      outcome.state === 'approved'
        ? outcome.edited
          ? { type: 'edit', editedAction: { name: r.tool, args: outcome.args } }
          : { type: 'approve' }
        : { type: 'reject', message: r.resolution?.message ?? outcome.state },
    );
    interlock.push({ requestId: r.id, status: r.status });
  }
  return { decisions, interlock: interlock.length === 1 ? interlock[0] : interlock };
}

/** Continue a thread: from its last checkpoint when it stopped midway, else the decided interrupts. */
async function resumeGraph(il: Interlock, agent: ResumableGraph, threadId: string): Promise<LangChainRunResult> {
  const open = await pendingOf(il, agent, threadId);
  if (open.length === 0) {
    // A run that stopped midway (an error, a crash after its tools ran) continues from the graph's
    // last checkpoint: LangGraph re-runs only what did not finish, so no model call is repeated.
    const state = await agent.getState(config(threadId));
    if (!state.next?.length) return { threadId, stopReason: 'end_turn', text: '', interrupts: [] };
    return resultOf(il, agent, threadId, await agent.invoke(null, config(threadId)));
  }
  // Decided calls go on now, each on its own; the ones still pending interrupt again when their
  // task re-runs, and the run reports them. An interrupt for a whole step goes on once any of its
  // actions is decided: the decided calls run, the others interrupt one by one.
  const decided = open.filter((x) => x.decided.length > 0);
  if (decided.length === 0)
    return { threadId, stopReason: 'interrupt', text: '', interrupts: interruptsOf(open.flatMap((x) => x.pending)) };
  // Each interrupt gets LangChain's decision shape, by id; the middleware follows Interlock's record.
  const resume: Record<string, unknown> = {};
  for (const x of decided) resume[x.id] = await resumeValue(il, x.decided);
  return resultOf(il, agent, threadId, await agent.invoke(new Command({ resume }), config(threadId)));
}

/**
 * Run and resume a `createAgent` agent (with {@link interlockMiddleware}) on Interlock's threads, and
 * let the Interlock worker resume them after decisions: register it in `interlock.config.ts`.
 * `resume` turns Interlock's decisions into `Command({ resume })`, matched to each interrupt by id.
 */
export function createLangChainRunner(o: {
  name: string;
  version?: string;
  interlock: Interlock;
  agent: ResumableGraph;
  /** The graph's input for a user message (default `{ messages: [{ role: 'user', content }] }`, as createAgent takes). */
  input?: (text: string) => unknown;
}): Omit<ThreadRunner, 'invoke' | 'resume'> & {
  invoke(input: string, opts?: { threadId?: string }): Promise<LangChainRunResult>;
  resume(threadId: string): Promise<LangChainRunResult>;
} {
  const il = o.interlock;
  return {
    name: o.name,
    version: o.version ?? '1',
    async invoke(input, opts = {}) {
      const threadId = opts.threadId ?? `thr_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
      const graphInput = o.input ? o.input(input) : { messages: [{ role: 'user', content: input }] };
      return resultOf(il, o.agent, threadId, await o.agent.invoke(graphInput, config(threadId)));
    },
    resume: (threadId) => resumeGraph(il, o.agent, threadId),
    async abort(threadId, by = `agent:${o.name}`) {
      return il.threads.abort(threadId, by);
    },
  };
}
