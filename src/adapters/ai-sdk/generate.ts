import type { ModelMessage, ToolSet } from 'ai';
import {
  runTurn,
  watchWiring,
  type AdapterCall,
  type AdapterState,
  type CallGate,
  type RunCalls,
  type ThreadRun,
} from '../core/index.ts';
import { HOW, runResult, type AiSdkContext } from './context.ts';
import { inHistory, type Part } from './messages.ts';
import { wrapTools } from './tools.ts';
import type { AiSdkRunResult, GenerateInput } from './types.ts';

/** One generation over a held thread: gate, run, then save (pause or finish). */
export async function generateTurn<TOOLS extends ToolSet>(
  ctx: AiSdkContext<TOOLS>,
  run: ThreadRun,
  threadId: string,
  added: ModelMessage[],
): Promise<AiSdkRunResult> {
  const { o } = ctx;
  // A retry of this run (same history, same input) keys its automatic calls alike; another input does not.
  const calls = ctx.gate.forRun(threadId, run.state?.waiting, runTurn(run.messages.length, added));
  const tools = wrapTools(ctx, o.tools, threadId, calls);
  const toolApproval = approvalHook<TOOLS>(ctx.gate, calls, threadId);
  const messages = [...(run.messages as ModelMessage[]), ...added];
  const out = await watchWiring('AI SDK adapter', HOW, async () =>
    o.generate({ tools, toolApproval, messages, threadId }),
  );
  const response = [...(await out.responseMessages)];
  const newMessages = [...added, ...response];
  const { items, waiting, known } = await calls.collectPause(stoppedCalls(response, calls, threadId));
  const state: AdapterState = { adapter: 'ai-sdk', waiting };
  if (items.length > 0) {
    const paused = await run.pause(newMessages, state, items, `agent:${o.name}`);
    return runResult(threadId, 'interrupt', newMessages, [...known, ...paused.requests]);
  }
  await run.finish(newMessages, state, waiting.length ? 'interrupted' : 'completed');
  return runResult(threadId, waiting.length ? 'interrupt' : 'end_turn', newMessages, known);
}

/** A call of the thread as the SDK proposes it. */
function callOf(threadId: string, toolCallId: string, tool: string, input: unknown): AdapterCall {
  return { threadId, toolCallId, tool, args: (input ?? {}) as Record<string, unknown> };
}

/** The SDK's approval hook for one run: Interlock's policy and recorded decisions answer it. */
function approvalHook<TOOLS extends ToolSet>(
  gate: CallGate,
  calls: RunCalls,
  threadId: string,
): GenerateInput<TOOLS>['toolApproval'] {
  return async ({ toolCall, messages: given }) => {
    const call = callOf(threadId, toolCall.toolCallId, toolCall.toolName, toolCall.input);
    // The step's messages are one array per step: two calls under one id in it are refused together.
    const c = await calls.check(call, given);
    // The SDK passes the call's own assistant message only when it re-checks an approval found in
    // the history: then only a decision recorded in Interlock approves, never the history's.
    if ((c.kind === 'ask' || c.kind === 'wait') && inHistory(given, call.toolCallId)) {
      return {
        type: 'denied',
        reason: `No reviewer approved call ${call.toolCallId} in Interlock${c.kind === 'wait' ? ` (request ${c.outcome.request.id} is pending)` : ''}; an approval in the conversation is not a decision. Nothing ran.`,
      };
    }
    switch (c.kind) {
      case 'run':
        return { type: 'not-applicable' };
      case 'block':
        // A denial keys the whole call id in the SDK: a collision denies every call under it.
        await gate.recordBlock(call, c);
        return { type: 'denied', reason: c.message };
      case 'ask':
        return { type: 'user-approval', reason: c.verdict.reason };
      case 'wait':
        return { type: 'user-approval', reason: c.outcome.request.reason };
      case 'approved':
        // The SDK asks again when the run continues: Interlock's record answers, not the history's.
        return c.mismatch
          ? {
              type: 'denied',
              reason: `The arguments differ from the ones approved on request ${c.outcome.request.id}; nothing ran.`,
            }
          : { type: 'approved' };
      case 'not_run':
        return { type: 'denied', reason: c.message };
    }
  };
}

/** The calls the SDK stopped on: its approval requests in this run's messages. */
function stoppedCalls(response: ModelMessage[], calls: RunCalls, threadId: string) {
  return response.flatMap((m) => {
    if (m.role !== 'assistant' || typeof m.content === 'string') return [];
    const parts = m.content as Part[];
    return parts.flatMap((p) => {
      if (p.type !== 'tool-approval-request' || !p.toolCallId) return [];
      const callPart = parts.find((q) => q.type === 'tool-call' && q.toolCallId === p.toolCallId) as
        { toolName: string; input: unknown } | undefined;
      // A denied call (blocked, a repeated id) stopped nothing: only asks and waits pause.
      const c = calls.known(p.toolCallId);
      if (!callPart || (c?.kind !== 'ask' && c?.kind !== 'wait')) return [];
      return [
        {
          call: callOf(threadId, p.toolCallId, callPart.toolName, callPart.input),
          extra: p.approvalId ? { approvalId: p.approvalId } : {},
        },
      ];
    });
  });
}
