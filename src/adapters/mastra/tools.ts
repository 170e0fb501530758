import { AsyncLocalStorage } from 'node:async_hooks';
import {
  CallRefusedError,
  NotWiredError,
  noteBypass,
  withExecution,
  type AdapterCall,
  type CallCheck,
  type CallGate,
  type InterlockExecution,
  type RunCalls,
} from '../core/index.ts';
import type { AnyMastraAgent } from './types.ts';

type Execute = (input: unknown, context: unknown) => unknown;

/** How to run a Mastra agent through Interlock: said by every wiring error. */
export const HOW =
  "Run the agent through the Interlock agent createMastraAgent returns (invoke / resume), not agent.generate, stream or network directly, and give it static tools (new Agent({ tools: { … } })): its tools run only under Interlock's policy (see docs/adapters/mastra.md).";

/** One Mastra call of an adapter run: where the agent's wrapped tools find their thread, calls and step. */
export interface ToolRun {
  /** The Mastra agent this run drives: a tool called by another agent (a sub-agent) is not gated here. */
  agentId: string;
  threadId: string;
  gate: CallGate;
  calls: RunCalls;
  /** The model step in progress (one object per step): two calls under one id in it are refused together. */
  step(): object;
  /** Mastra finished a step (its onStepFinish hook): the next call is in a new one. */
  nextStep(): void;
  /** Call ids this run's tools handled or the run answered: nothing else may have run. */
  handled: Set<string>;
  /** The check the run made of a call it is about to approve in Mastra: the tool runs under it. */
  approving: Map<string, CallCheck>;
}

const active = new AsyncLocalStorage<ToolRun>();

/** Run `fn` (one Mastra call) with `run` as the run the agent's wrapped tools answer to. */
export function withToolRun<T>(run: ToolRun, fn: () => Promise<T>): Promise<T> {
  return active.run(run, fn);
}

/**
 * Gate the agent's tools in place: from now on each tool's `execute` runs only inside an adapter run
 * of this agent, under a policy verdict or a recorded decision, at most once.
 */
export async function gateTools(agent: AnyMastraAgent): Promise<void> {
  const tools = (await agent.listTools()) as Record<string, { execute?: unknown }>;
  for (const [name, tool] of Object.entries(tools))
    if (tool && typeof tool.execute === 'function' && !wrappers.has(tool.execute))
      wrap(tool as { execute: Execute }, name);
}

/** Tools the agent resolves now whose body is not gated (tools built per run by a `tools` function). */
export async function ungatedTools(agent: AnyMastraAgent): Promise<string[]> {
  const tools = (await agent.listTools()) as Record<string, { execute?: unknown }>;
  return Object.entries(tools)
    .filter(([, t]) => t && typeof t.execute === 'function' && !wrappers.has(t.execute))
    .map(([name]) => name);
}

/** Interlock's wrappers of tool bodies: a tool object copied with its wrapper stays gated. */
const wrappers = new WeakSet<object>();

function wrap(tool: { execute: Execute }, name: string): void {
  const original = tool.execute;
  const gatedExecute = async function (input: unknown, context: unknown): Promise<unknown> {
    const run = active.getStore();
    const agent = (context as { agent?: { agentId?: string; toolCallId?: string } } | undefined)?.agent;
    if (!run || typeof agent?.toolCallId !== 'string' || (agent.agentId && agent.agentId !== run.agentId)) {
      noteBypass(`tool "${name}"${agent?.agentId ? ` of agent "${agent.agentId}"` : ''}`);
      throw new NotWiredError('Mastra adapter', `tool "${name}"`, HOW);
    }
    const call: AdapterCall = {
      threadId: run.threadId,
      toolCallId: agent.toolCallId,
      tool: name,
      args: (input ?? {}) as Record<string, unknown>,
    };
    return runGated(run, call, (args, ledger) =>
      withExecution(ledger, async () => original.call(tool, args, { ...(context as object), interlock: ledger })),
    );
  };
  wrappers.add(gatedExecute);
  tool.execute = gatedExecute;
}

/** One call of the agent's tool: what its check allows, under the ledger; a refusal is the tool's error the model reads. */
async function runGated(
  run: ToolRun,
  call: AdapterCall,
  body: (args: Record<string, unknown>, ledger: InterlockExecution) => Promise<unknown>,
): Promise<unknown> {
  run.handled.add(call.toolCallId);
  const approving = run.approving.get(call.toolCallId);
  run.approving.delete(call.toolCallId);
  const c = approving ?? (await run.calls.check(call, run.step()));
  if (c.kind === 'block') {
    await run.gate.recordBlock(call, c);
    throw new CallRefusedError(call, { code: c.code ?? 'blocked', message: c.message });
  }
  // The reviewer answered in place of the tool: the answer is its result, and nothing runs.
  if (c.kind === 'not_run' && c.answered) return c.message;
  // Mastra ran a call Interlock says needs a person without asking: its approval predicate was bypassed.
  if (c.kind === 'ask' || c.kind === 'wait')
    noteBypass(`call ${call.toolCallId} of "${call.tool}" (no approval asked)`);
  const r = await run.gate.run(
    call,
    (args, ledger) => body(args, { idempotencyKey: ledger.idempotencyKey, attempt: ledger.attempt }),
    c,
  );
  if (r.status === 'refused') throw new CallRefusedError(call, r);
  if (r.status === 'failed') throw new Error(r.error);
  return r.result;
}
