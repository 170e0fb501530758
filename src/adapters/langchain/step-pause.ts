import { interrupt } from '@langchain/langgraph';
import type { ApprovalRequest } from '../../core/index.ts';
import type { Interlock } from '../../engine/index.ts';
import type { AdapterCall, CallCheck, CallGate } from '../core/index.ts';
import { openRequest, payload } from './decide-call.ts';
import { reusedCallId } from './messages.ts';

type ToolCallLike = { id?: string; name: string; args: Record<string, unknown> };

/**
 * After the model's turn, before any of its calls run: when every call of the step waits on a
 * reviewer, pause once with one interrupt listing every action (LangChain's `HITLRequest` shape),
 * as `humanInTheLoopMiddleware` does. A step with a call that may run now (auto, or already decided)
 * does not wait here: that call runs, and each call still pending interrupts on its own
 * ({@link decideCall}). The requests are opened here, durable before the interrupt; the tool calls
 * find them by thread and call id.
 */
export async function pauseWholeStep(
  il: Interlock,
  gate: CallGate,
  who: { name: string; version: string; proposer: string },
  threadId: string | undefined,
  messages: readonly unknown[] | undefined,
): Promise<void> {
  const last = messages?.at(-1) as { tool_calls?: ToolCallLike[]; getType?: () => string } | undefined;
  const toolCalls = last?.getType?.() === 'ai' ? (last.tool_calls ?? []) : [];
  // A step LangGraph cannot key (no thread, a call without an id) is refused by the tool wrapper.
  if (!threadId || toolCalls.length === 0 || toolCalls.some((tc) => !tc.id || reusedCallId(messages, tc.id))) return;
  const calls: AdapterCall[] = toolCalls.map((tc) => ({ threadId, toolCallId: tc.id!, tool: tc.name, args: tc.args }));
  // The policy alone first (no request lookup): a step with a call that runs now or is blocked does
  // not wait as a whole, and an automatic step pays nothing more here.
  for (const call of calls) if ((await gate.verdict(call)).kind !== 'ask') return;
  const checks: CallCheck[] = [];
  for (const call of calls) checks.push(await openRequest(il, gate, who, call, messages));
  const waiting: ApprovalRequest[] = [];
  for (const c of checks) {
    if (c.kind !== 'wait') return;
    waiting.push(c.outcome.request);
  }
  interrupt(payload(il, waiting));
}
