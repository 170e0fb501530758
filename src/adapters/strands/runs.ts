import type { Agent, AgentResult, InterruptResponseContentData, Tool } from '@strands-agents/sdk';
import { ConfigError } from '../../core/index.ts';
import type { RunnerInterrupt } from '../../engine/index.ts';
import {
  guardTool,
  interruptsOf,
  runTurn,
  settleRun,
  watchWiring,
  type AdapterState,
  type CallCheck,
  type CallGate,
  type ThreadRun,
} from '../core/index.ts';
import { HOW, type ToolStream } from './gated-tool.ts';
import { attachGate } from './hooks.ts';
import { toThreadMessages } from './messages.ts';
import type { StrandsAgentOptions, StrandsRunInput, StrandsRunResult, StrandsSaved } from './types.ts';

/** What the adapter's runs share: the options, the threads' agent name, the call gate and the agents built so far. */
export interface StrandsContext {
  o: StrandsAgentOptions;
  name: string;
  gate: CallGate;
  /** Every agent the factory returned: one reused would carry one thread's conversation into another. */
  built: WeakSet<object>;
}

/** A paused call of a saved Strands run: its request and the interrupt the SDK keeps for it. */
type Waiting = AdapterState['waiting'][number] & { interruptId?: string };

const INTEGRATION = 'Strands adapter';

/**
 * One invocation of a fresh agent over a held thread, then its save: a pause on the calls it
 * stopped on, or its end. The agent starts from Interlock's checkpoint — the source of truth — even
 * when a session manager restored a copy of its own while the agent initialized.
 */
export async function runAndSave(
  ctx: StrandsContext,
  run: ThreadRun,
  threadId: string,
  input: StrandsRunInput,
  turn: string,
): Promise<StrandsRunResult> {
  const saved = run.state?.framework as StrandsSaved | undefined;
  const { agent, originals } = await buildAgent(ctx, threadId, saved);
  const calls = ctx.gate.forRun(threadId, run.state?.waiting, turn);
  const hooks = attachGate(ctx.gate, agent, threadId, calls, originals);
  let result: AgentResult;
  try {
    const invoke = ctx.o.run ?? ((a: Agent, i: StrandsRunInput) => a.invoke(i));
    result = await watchWiring(INTEGRATION, HOW, () => invoke(agent, input));
  } finally {
    hooks.detach();
  }
  const ours = new Set(hooks.stopped.map((s) => s.extra.interruptId));
  const foreign = (result.interrupts ?? []).filter((i) => !ours.has(i.id));
  if (foreign.length > 0)
    throw new ConfigError(
      `${INTEGRATION}: the run stopped on interrupt(s) Interlock did not raise (${foreign.map((i) => i.id).join(', ')}); nothing of it was saved. Interlock answers only its own interrupts: put the decision in Interlock's policy (a rule for the tool), or answer that hook's interrupt before the agent is handed to Interlock.`,
      { threadId, reason: 'foreign_interrupt', interrupts: foreign.map((i) => i.id) },
    );
  const { items, waiting, known } = await calls.collectPause(hooks.stopped);
  const messages = agent.messages.map((m) => m.toJSON());
  const from = saved?.last ? messages.findIndex((m) => m.trackingId === saved.last) + 1 : 0;
  const newMessages = toThreadMessages(messages.slice(from));
  const framework: StrandsSaved = {
    snapshot: agent.takeSnapshot({ preset: 'session' }),
    ...(messages.length ? { last: messages.at(-1)!.trackingId } : saved?.last ? { last: saved.last } : {}),
  };
  const state: AdapterState = { adapter: 'strands', waiting, framework };
  const text = result.stopReason === 'interrupt' ? '' : result.toString();
  return settleRun(run, { threadId, newMessages, state, items, known, proposer: `agent:${ctx.name}`, text, result });
}

/**
 * Continue a paused run: each decided call's interrupt answered by id with the reviewer's decision,
 * and the agent invoked with those answers. The hook reads the decision from Interlock's record, not
 * from the answer. While every call still waits, nothing runs.
 */
export async function resumeRun(ctx: StrandsContext, run: ThreadRun, threadId: string): Promise<StrandsRunResult> {
  const r = await decidedAnswers(ctx.gate, run, threadId);
  if ('result' in r) return r.result;
  return runAndSave(ctx, run, threadId, r.answers, runTurn(run.messages.length, r.waiting));
}

/**
 * Where a paused run (an agent's or a graph's) stands when it is resumed: nothing waits (it ended),
 * every call still waits (its interrupts again), or the answers, by interrupt id, of the calls decided
 * so far. The run's lease is given back in the first two cases, where nothing runs.
 */
export async function decidedAnswers<W extends Waiting>(
  gate: Pick<CallGate, 'decisionOf'>,
  run: ThreadRun,
  threadId: string,
): Promise<
  | { result: { threadId: string; stopReason: 'end_turn' | 'interrupt'; text: string; interrupts: RunnerInterrupt[] } }
  | { answers: InterruptResponseContentData[]; waiting: W[] }
> {
  const waiting = (run.state?.waiting ?? []) as W[];
  if (waiting.length === 0) {
    await run.release();
    return { result: { threadId, stopReason: 'end_turn', text: '', interrupts: [] } };
  }
  const decisions = await Promise.all(waiting.map((w) => gate.decisionOf(w.requestId)));
  const pending = decisions.flatMap((d) => (d.kind === 'wait' ? [d.outcome.request] : []));
  if (pending.length === decisions.length) {
    await run.release();
    return { result: { threadId, stopReason: 'interrupt', text: '', interrupts: interruptsOf(pending) } };
  }
  const answers = waiting.flatMap((w, i) => {
    const d = decisions[i]!;
    return d.kind === 'wait' || !w.interruptId
      ? []
      : [{ interruptResponse: { interruptId: w.interruptId, response: responseOf(w.requestId, d) } }];
  });
  return { answers, waiting };
}

/** What the SDK's interrupt is answered with: the decision as recorded (for the app's own hooks and logs). */
export function responseOf(
  requestId: string,
  d: Exclude<CallCheck, { kind: 'wait' | 'run' | 'block' | 'ask' }>,
): Record<string, string | null> {
  if (d.kind === 'approved')
    return { requestId, decision: d.outcome.edited ? 'edit' : 'approve', by: d.outcome.by ?? null };
  return { requestId, decision: d.outcome.state, message: d.message };
}

/** A new agent from the app's factory, its tools guarded, with the thread's saved state loaded. */
async function buildAgent(
  ctx: StrandsContext,
  threadId: string,
  saved: StrandsSaved | undefined,
): Promise<{ agent: Agent; originals: Map<string, { tool: Tool; stream: ToolStream }> }> {
  const agent = await ctx.o.agent(threadId);
  if (!agent || typeof agent.invoke !== 'function' || typeof agent.loadSnapshot !== 'function')
    throw new ConfigError(
      `createStrandsAgent: "agent" must return a Strands Agent (new Agent({ model, tools })). ${HOW}`,
    );
  if (ctx.built.has(agent))
    throw new ConfigError(
      `createStrandsAgent: "agent" returned an Agent it returned before; one agent object would carry one thread's conversation and interrupts into another. Build a new Agent in each call: agent: () => new Agent({ ... }).`,
    );
  ctx.built.add(agent);
  // A session manager restores its own copy here; the checkpoint replaces it below.
  await agent.initialize();
  refuseSubAgents(agent);
  if (saved?.snapshot) agent.loadSnapshot(saved.snapshot as Parameters<Agent['loadSnapshot']>[0]);
  const originals = new Map<string, { tool: Tool; stream: ToolStream }>();
  for (const tool of agent.tools) {
    // The tool objects run only through Interlock from now on, in this agent and any other holding them.
    const stream = guardTool(tool, 'stream', tool.name, INTEGRATION, HOW);
    originals.set(tool.name, { tool, stream });
  }
  return { agent, originals };
}

/**
 * An agent used as a tool runs its own tools in its own loop, where Interlock's hooks are not: refuse
 * it when the agent is built rather than let its tools pass the policy by.
 */
function refuseSubAgents(agent: Agent): void {
  const subs = agent.tools.filter((t) => (t as { agent?: unknown }).agent !== undefined).map((t) => t.name);
  if (subs.length === 0) return;
  throw new ConfigError(
    `createStrandsAgent: agent "${agent.name}" uses agents as tools (${subs.join(', ')}), whose tools Interlock cannot gate through this adapter. Give their tools to the agent itself, or build the tree with Interlock's own agents (agentTool, handoffs; docs/multi-agent.md).`,
    { agent: agent.name },
  );
}
