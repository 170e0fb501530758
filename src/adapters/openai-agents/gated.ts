import type { FunctionTool, RunContext } from '@openai/agents-core';
import { ConfigError } from '../../core/index.ts';
import type { AdapterCall, AdapterState, CallGate, InterlockExecution, RunCalls } from '../core/index.ts';
import type { AnyAgent, OpenAIAgentsOptions } from './types.ts';

/** What the adapter's runs share: the options, the threads' agent name, the call gate and the guarded tools. */
export interface OpenAIContext {
  o: OpenAIAgentsOptions;
  name: string;
  gate: CallGate;
  /** The agent's function tools' own `invoke`, by tool name: only Interlock's wrapped tools call them. */
  originals: Map<string, FunctionTool['invoke']>;
}

/** The user's agent with its function tools behind Interlock for one run, and that run's calls. */
export interface GatedAgent {
  agent: AnyAgent;
  calls: RunCalls;
}

type Details = { toolCall?: { callId?: string } } | undefined;

/** How `run` must hand the SDK Interlock's agent: said by every wiring error. */
export const HOW =
  'Run the agent Interlock passes to `run` — `run: (agent, input) => runner.run(agent, input)` — not your own Agent object.';

/** The SDK parses and validates the call's input before it asks; the zod schemas of the tools do the same. */
export function parse(input: unknown): Record<string, unknown> {
  return typeof input === 'string'
    ? (JSON.parse(input || '{}') as Record<string, unknown>)
    : ((input ?? {}) as Record<string, unknown>);
}

/**
 * The user's agent with its function tools behind Interlock, for one run of a thread. The run's calls
 * keep what `needsApproval` found per call id, so `invoke` and the pause do not ask the database again.
 */
export function gated(
  ctx: OpenAIContext,
  threadId: string,
  turn: string,
  waiting?: AdapterState['waiting'],
): GatedAgent {
  // The SDK refuses a call id repeated in one response itself; a paused call is found by its request.
  const calls = ctx.gate.forRun(threadId, waiting, turn);
  const tools = ctx.o.agent.tools.map((t) => {
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
      invoke: (runCtx: RunContext, input: string, details?: Details) =>
        invokeGated(ctx, calls, ft, threadId, runCtx, input, details),
    };
    return wrapped;
  });
  return { agent: ctx.o.agent.clone({ tools }), calls };
}

/**
 * A function tool's call as the SDK invokes it: refused (as the tool's result) unless the policy or
 * a decision lets it run, then run once under the ledger with the authorized arguments.
 */
async function invokeGated(
  ctx: OpenAIContext,
  calls: RunCalls,
  ft: FunctionTool,
  threadId: string,
  runCtx: RunContext,
  input: string,
  details: Details,
): Promise<unknown> {
  const { gate } = ctx;
  const callId = details?.toolCall?.callId;
  if (!callId) throw new ConfigError(`Tool ${ft.name} was invoked without a call id; Interlock cannot key its run.`);
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
      const invoke = ctx.originals.get(ft.name) ?? ft.invoke;
      return await invoke.call(ft, runCtx, JSON.stringify(args), { ...(details ?? {}), interlock } as Parameters<
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
}
