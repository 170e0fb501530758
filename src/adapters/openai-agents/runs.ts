import type { AgentInputItem, RunState as RunStateType, RunToolApprovalItem } from '@openai/agents-core';
import { interruptsOf, runTurn, settleRun, watchWiring, type AdapterState, type ThreadRun } from '../core/index.ts';
import { gated, HOW, parse, type GatedAgent, type OpenAIContext } from './gated.ts';
import { toThreadMessages } from './messages.ts';
import type { AnyAgent, OpenAIAgentsRunResult } from './types.ts';

/** One SDK run over a held thread, then its save: a pause on the calls it stopped on, or its end. */
export async function runAndSave(
  ctx: OpenAIContext,
  run: ThreadRun,
  threadId: string,
  { agent, calls }: GatedAgent,
  input: string | AgentInputItem[] | RunStateType<unknown, AnyAgent>,
  /** How many items of the run's history are saved already (the earlier turns, the paused run's items). */
  saved: number,
): Promise<OpenAIAgentsRunResult> {
  const result = await watchWiring('OpenAI Agents adapter', HOW, () => ctx.o.run(agent, input));
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
  return settleRun(run, { threadId, newMessages, state, items, known, proposer: `agent:${ctx.name}`, text, result });
}

/**
 * Continue a paused run: its saved `RunState` restored, each decided call approved or rejected the
 * SDK's way, and the run continued; while every call still waits, nothing runs.
 */
export async function resumeRun(ctx: OpenAIContext, run: ThreadRun, threadId: string): Promise<OpenAIAgentsRunResult> {
  const waiting = run.state?.waiting ?? [];
  const saved = run.state?.framework;
  if (waiting.length === 0 || typeof saved !== 'string') {
    await run.release();
    return { threadId, stopReason: 'end_turn', text: '', interrupts: [] };
  }
  const decisions = await Promise.all(waiting.map((w) => ctx.gate.decisionOf(w.requestId)));
  const pending = decisions.flatMap((d) => (d.kind === 'wait' ? [d.outcome.request] : []));
  // Decided calls go on now, each on its own: the SDK runs the approved ones and stops again on
  // the ones still pending (their needsApproval still answers true).
  if (pending.length === decisions.length) {
    await run.release();
    return { threadId, stopReason: 'interrupt', text: '', interrupts: interruptsOf(pending) };
  }
  const agent = gated(ctx, threadId, runTurn(run.messages.length, waiting), waiting);
  const state = await ctx.o.RunState.fromString(agent.agent, saved);
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
  return runAndSave(ctx, run, threadId, agent, state, run.state?.seen ?? 0);
}
