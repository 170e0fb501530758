import type {
  Agent,
  AgentInputItem,
  FunctionTool,
  RunContext,
  RunResult,
  RunState as RunStateType,
  RunToolApprovalItem,
} from '@openai/agents-core';
import { ConfigError, newId } from '../../core/index.ts';
import { toInputItems, toThreadMessages } from './messages.ts';
import type { Interlock, RunnerResult, ThreadRunner, ToolSchemaEntry } from '../../engine/index.ts';
import {
  createCallGate,
  interruptsOf,
  withThreadRun,
  busyResult,
  schemasOf,
  type AdapterCall,
  guardTool,
  runTurn,
  watchWiring,
  type AdapterState,
  type RunCalls,
  type CallGateOptions,
  type InterlockExecution,
  type ThreadRun,
} from '../core/index.ts';

export { interlockRun, type InterlockExecution } from '../core/index.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyAgent = Agent<any, any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyResult = RunResult<any, any>;

/** The `RunState` class of the SDK the application uses (import it from `@openai/agents-core` or `@openai/agents`). */
export interface RunStateClass {
  fromString(agent: AnyAgent, serialized: string): Promise<RunStateType<unknown, AnyAgent>>;
}

/** Options of {@link createOpenAIAgentsAgent}. */
export interface OpenAIAgentsOptions extends Omit<CallGateOptions, 'interlock' | 'proposer'> {
  /** Threads carry this name; the worker resumes them with the agent of that name (default: the agent's name). */
  name?: string;
  /** Stored with each thread (default `1`). */
  version?: string;
  interlock: Interlock;
  /** Your agent, as written; its function tools are gated by Interlock. */
  agent: AnyAgent;
  /** `RunState` from the SDK package you use, to restore a paused run. */
  RunState: RunStateClass;
  /**
   * Zod schemas of the tools reviewers may edit, by tool name: the SDK keeps only a tool's JSON schema,
   * and an edit is validated before it is accepted (a tool without one can be approved, rejected or
   * answered, not edited).
   */
  schemas?: Record<string, ToolSchemaEntry['schema']>;
  /** One run: your `run(agent, input)` or `runner.run(agent, input)`, with the agent and input Interlock passes. */
  run: (agent: AnyAgent, input: string | AgentInputItem[] | RunStateType<unknown, AnyAgent>) => Promise<AnyResult>;
}

/** What a run of an adapter thread came to. */
export interface OpenAIAgentsRunResult extends RunnerResult {
  /** The SDK's result of this run (undefined when nothing ran: busy, or still waiting). */
  result?: AnyResult;
}

/** The OpenAI Agents SDK agent behind Interlock. */
export interface OpenAIAgentsAgent extends ThreadRunner {
  invoke(input: string, opts?: { threadId?: string }): Promise<OpenAIAgentsRunResult>;
  resume(threadId: string): Promise<OpenAIAgentsRunResult>;
}

type Details = { toolCall?: { callId?: string } } | undefined;

const HOW =
  'Run the agent Interlock passes to `run` — `run: (agent, input) => runner.run(agent, input)` — not your own Agent object.';

/**
 * Sub-agents reached by `handoff()` or `agent.asTool()` run their own tools, which this adapter does
 * not wrap: refuse them when the agent is built rather than let their tools pass the policy by.
 */
function refuseSubAgents(agent: AnyAgent): void {
  const subTools = agent.tools.filter((t) => typeof (t as { on?: unknown }).on === 'function').map((t) => t.name);
  const handoffs = (agent.handoffs ?? []).length;
  if (handoffs === 0 && subTools.length === 0) return;
  throw new ConfigError(
    `createOpenAIAgentsAgent: agent "${agent.name}" reaches sub-agents (${[
      ...(handoffs ? [`${handoffs} handoff(s)`] : []),
      ...subTools.map((n) => `asTool "${n}"`),
    ].join(
      ', ',
    )}), whose tools Interlock cannot gate through this adapter. Give the sub-agents' tools to the agent itself, or build the tree with Interlock's own agents (agentTool, handoffs; docs/multi-agent.md).`,
    { agent: agent.name },
  );
}

/**
 * Put Interlock in front of an OpenAI Agents SDK agent's function tools. Each tool's
 * `needsApproval` is answered by Interlock's policy and recorded decisions, and its
 * `invoke` runs under the execute-once ledger with the authorized (or edited)
 * arguments. A gated call interrupts the run the SDK's way and opens a durable
 * Interlock request; the serialized `RunState` is stored with it, so `resume` —
 * or the Interlock worker — continues the run in any process.
 *
 * @example
 * const support = createOpenAIAgentsAgent({ interlock, agent, RunState, run: (a, i) => run(a, i) });
 * const r = await support.invoke('Refund order A-1001');   // r.stopReason: 'interrupt'
 * await support.resume(r.threadId);                        // after a reviewer decided
 */
export function createOpenAIAgentsAgent(o: OpenAIAgentsOptions): OpenAIAgentsAgent {
  if (!o || typeof o !== 'object')
    throw new ConfigError('createOpenAIAgentsAgent needs options: { interlock, agent, RunState, run }.');
  if (!o.interlock) throw new ConfigError('createOpenAIAgentsAgent: "interlock" is required.');
  if (!o.agent || !Array.isArray(o.agent.tools))
    throw new ConfigError('createOpenAIAgentsAgent: "agent" must be your Agent (new Agent({ name, tools, ... })).');
  if (typeof o.RunState?.fromString !== 'function')
    throw new ConfigError('createOpenAIAgentsAgent: "RunState" must be the RunState class of @openai/agents(-core).');
  if (typeof o.run !== 'function')
    throw new ConfigError('createOpenAIAgentsAgent: "run" must be (agent, input) => run(agent, input).');
  const il = o.interlock;
  const name = o.name ?? o.agent.name;
  const version = o.version ?? '1';
  const functionTools = o.agent.tools.filter((t): t is FunctionTool => t.type === 'function');
  refuseSubAgents(o.agent);
  // The agent's own tool objects run only through Interlock from now on: a `run` that runs the app's
  // agent instead of the one Interlock passes in fails closed instead of running them ungated.
  const originals = new Map(
    functionTools.map((t) => [t.name, guardTool(t, 'invoke', t.name, 'OpenAI Agents adapter', HOW)] as const),
  );
  // The SDK keeps a tool's JSON schema only; the zod schemas passed in `schemas` validate reviewers' edits.
  const descriptions = new Map(functionTools.map((t) => [t.name, t.description]));
  il.registerTools(
    schemasOf(
      Object.fromEntries(
        Object.entries(o.schemas ?? {}).map(([k, schema]) => [
          k,
          { parameters: schema, ...(descriptions.has(k) ? { description: descriptions.get(k) } : {}) },
        ]),
      ),
    ),
  );
  const gate = createCallGate({
    interlock: il,
    proposer: `agent:${name}`,
    ...(o.app ? { app: o.app } : {}),
    ...(o.evidence ? { evidence: o.evidence } : {}),
    ...(o.texts ? { texts: o.texts } : {}),
  });
  // The SDK parses and validates the call's input before it asks; the zod schemas of the tools do the same.
  const parse = (input: unknown): Record<string, unknown> =>
    typeof input === 'string'
      ? (JSON.parse(input || '{}') as Record<string, unknown>)
      : ((input ?? {}) as Record<string, unknown>);

  /**
   * The user's agent with its function tools behind Interlock, for one run of a thread. `checks` keeps
   * what `needsApproval` found per call id, so `invoke` and the pause do not ask the database again.
   */
  function gated(
    threadId: string,
    turn: string,
    waiting?: AdapterState['waiting'],
  ): { agent: AnyAgent; calls: RunCalls } {
    // The SDK refuses a call id repeated in one response itself; a paused call is found by its request.
    const calls = gate.forRun(threadId, waiting, turn);
    const tools = o.agent.tools.map((t) => {
      if (t.type !== 'function') return t;
      const ft = t as FunctionTool;
      const wrapped: FunctionTool = {
        ...ft,
        needsApproval: async (_ctx: RunContext, input: unknown, callId?: string) => {
          if (!callId) return true;
          const c = await calls.check({ threadId, toolCallId: callId, tool: ft.name, args: parse(input) });
          // Calls that run (or are refused) without a person go straight to invoke, which says which.
          return c.kind === 'ask' || c.kind === 'wait' || c.kind === 'approved';
        },
        invoke: async (ctx: RunContext, input: string, details?: Details) => {
          const callId = details?.toolCall?.callId;
          if (!callId)
            throw new ConfigError(`Tool ${ft.name} was invoked without a call id; Interlock cannot key its run.`);
          const call: AdapterCall = { threadId, toolCallId: callId, tool: ft.name, args: parse(input) };
          const c = calls.known(callId) ?? (await calls.check(call));
          if (c.kind === 'block') {
            await gate.recordBlock(call, c);
            return c.message;
          }
          if (c.kind === 'not_run') return c.message;
          const r = await gate.run(
            call,
            async (args, ledger) => {
              const interlock: InterlockExecution = { idempotencyKey: ledger.idempotencyKey, attempt: ledger.attempt };
              const invoke = originals.get(ft.name) ?? ft.invoke;
              return await invoke.call(ft, ctx, JSON.stringify(args), { ...(details ?? {}), interlock } as Parameters<
                FunctionTool['invoke']
              >[2]);
            },
            c,
          );
          if (r.status === 'refused') return `Not run: ${r.message}`;
          if (r.status === 'failed') return `The tool failed: ${r.error}`;
          return r.edited
            ? `${gate.texts.edited(r.args)} Result: ${typeof r.result === 'string' ? r.result : JSON.stringify(r.result)}`
            : r.result;
        },
      };
      return wrapped;
    });
    return { agent: o.agent.clone({ tools }), calls };
  }

  async function runAndSave(
    run: ThreadRun,
    threadId: string,
    { agent, calls }: ReturnType<typeof gated>,
    input: string | AgentInputItem[] | RunStateType<unknown, AnyAgent>,
    /** How many items of the run's history are saved already (the earlier turns, the paused run's items). */
    saved: number,
  ): Promise<OpenAIAgentsRunResult> {
    const result = await watchWiring('OpenAI Agents adapter', HOW, () => o.run(agent, input));
    const history = result.history;
    const interruptions = result.interruptions ?? [];
    const stopped = interruptions.flatMap((item) => {
      const callId = (item.rawItem as { callId?: string }).callId;
      return callId && item.name
        ? [{ call: { threadId, toolCallId: callId, tool: item.name, args: parse(item.arguments) } }]
        : [];
    });
    const { items, waiting, known } = await calls.collectPause(stopped);
    // finalOutput exists only when the run ended (the SDK warns when it is read on an interruption).
    const final: unknown = interruptions.length ? undefined : result.finalOutput;
    const text = typeof final === 'string' ? final : final === undefined ? '' : JSON.stringify(final);
    // The thread's messages (what the UI, API and CLI show, and what a later turn starts from): the
    // run's new items — its calls, their results, the answer — in the same part form as other threads.
    const newMessages = toThreadMessages(history.slice(saved));
    const state: AdapterState = {
      adapter: 'openai-agents',
      waiting,
      seen: history.length,
      ...(interruptions.length ? { framework: result.state.toString() } : {}),
    };
    if (items.length > 0) {
      const paused = await run.pause(newMessages, state, items, `agent:${name}`);
      return {
        threadId,
        stopReason: 'interrupt',
        text,
        interrupts: interruptsOf([...known, ...paused.requests]),
        result,
      };
    }
    await run.finish(newMessages, state, waiting.length ? 'interrupted' : 'completed');
    return {
      threadId,
      stopReason: waiting.length ? 'interrupt' : 'end_turn',
      text,
      interrupts: interruptsOf(known),
      result,
    };
  }

  const held = (threadId: string, fresh: boolean, fn: (run: ThreadRun) => Promise<OpenAIAgentsRunResult>) =>
    withThreadRun<OpenAIAgentsRunResult>(
      il,
      { threadId, agent: name, version, fresh, integration: 'openai-agents' },
      () => busyResult(threadId),
      fn,
    );

  return {
    name,
    version,
    async invoke(input, opts = {}) {
      if (typeof input !== 'string' || input.length === 0)
        throw new ConfigError('invoke needs the user message: a non-empty string.');
      const threadId = opts.threadId ?? newId<string>('thr');
      return held(threadId, true, async (run) => {
        // A later turn starts from the thread's history, as a chat continues.
        const prior = toInputItems(run.messages) as AgentInputItem[];
        const items: string | AgentInputItem[] = prior.length ? [...prior, { role: 'user', content: input }] : input;
        return runAndSave(run, threadId, gated(threadId, runTurn(run.messages.length, input)), items, prior.length);
      });
    },
    async resume(threadId) {
      return held(threadId, false, async (run) => {
        const waiting = run.state?.waiting ?? [];
        const saved = run.state?.framework;
        if (waiting.length === 0 || typeof saved !== 'string') {
          await run.release();
          return { threadId, stopReason: 'end_turn', text: '', interrupts: [] };
        }
        const decisions = await Promise.all(waiting.map((w) => gate.decisionOf(w.requestId)));
        const pending = decisions.flatMap((d) => (d.kind === 'wait' ? [d.outcome.request] : []));
        // Decided calls go on now, each on its own: the SDK runs the approved ones and stops again on
        // the ones still pending (their needsApproval still answers true).
        if (pending.length === decisions.length) {
          await run.release();
          return { threadId, stopReason: 'interrupt', text: '', interrupts: interruptsOf(pending) };
        }
        const agent = gated(threadId, runTurn(run.messages.length, waiting), waiting);
        const state = await o.RunState.fromString(agent.agent, saved);
        const byCall = new Map<string, RunToolApprovalItem>();
        for (const item of state.getInterruptions()) {
          const id = (item.rawItem as { callId?: string }).callId;
          if (id) byCall.set(id, item);
        }
        for (const [i, w] of waiting.entries()) {
          const item = byCall.get(w.toolCallId);
          const d = decisions[i];
          if (!item || !d) continue;
          // The SDK asks needsApproval again after restore; Interlock's record answers it, and the wrapped
          // invoke runs only what was authorized. A rejection's message (or a reviewer's answer) is what the model sees.
          if (d.kind === 'approved') state.approve(item);
          else if (d.kind === 'not_run') state.reject(item, { message: d.message });
        }
        return runAndSave(run, threadId, agent, state, run.state?.seen ?? 0);
      });
    },
    async abort(threadId, by = `agent:${name}`) {
      return il.threads.abort(threadId, by);
    },
  };
}
