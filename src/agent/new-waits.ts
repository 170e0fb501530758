import { newId, peopleOfRole, type ApprovalRequest } from '../core/index.ts';
import type { GateVerdict, PauseItem } from '../engine/index.ts';
import { textOf, type JsonValue, type Message } from './messages.ts';
import type { LoopState, PendingCall, Wait, WaitKind } from './state.ts';
import type { Tool } from './tool.ts';
import type { BudgetOptions } from './types.ts';
import { controlVerdict } from './waits.ts';

/**
 * The questions a run puts to people, built as values: a {@link NewWait} is the
 * wait the loop state keeps plus the pause item the engine writes. Pure, apart
 * from new ids and a tool's own evidence read.
 */

/** A new question for a person, collected during a step and written in one pause. */
export interface NewWait {
  wait: Wait;
  item: PauseItem;
}

/** What a reviewer sees beside the action: the last customer message and agent reply, and any extra. */
export function conversationEvidence(
  messages: readonly Message[],
  extra?: Record<string, unknown>,
): Record<string, unknown> {
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const lastAssistant = [...messages].reverse().find((m) => m.role === 'assistant');
  return { customerMessage: textOf(lastUser), agentSaid: textOf(lastAssistant), ...(extra ?? {}) };
}

/** The tool's own evidence for a reviewer, if it gives any; a failure is shown, never fatal to the pause. */
export async function toolEvidence(
  tool: Tool,
  args: Record<string, unknown>,
  threadId: string,
): Promise<Record<string, unknown> | undefined> {
  if (!tool.evidence) return undefined;
  try {
    return await tool.evidence(args, { threadId });
  } catch (err) {
    return { evidenceError: `could not read the tool's evidence: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** An approval question for a gated tool call, under the policy's verdict. */
export function approvalWait(
  call: PendingCall,
  args: Record<string, unknown>,
  verdict: GateVerdict,
  evidence: Record<string, unknown>,
  app: Record<string, unknown>,
): NewWait {
  const requestId = newId<string>('apr');
  return {
    wait: { kind: 'approval', requestId, name: call.toolName, reason: verdict.reason },
    item: { requestId, call: { tool: call.toolName, args }, toolCallId: call.toolCallId, verdict, evidence, app },
  };
}

/** A question the loop itself asks (hook, tool, batch, budget, confidence), under a verdict it builds. */
export function controlWait(
  kind: WaitKind,
  name: string,
  action: { tool: string; args: Record<string, unknown>; toolCallId?: string },
  v: Parameters<typeof controlVerdict>[0],
  evidence: Record<string, unknown>,
  app: Record<string, unknown>,
): NewWait {
  const requestId = newId<string>('apr');
  return {
    wait: { kind, requestId, name, reason: v.reason },
    item: {
      requestId,
      call: { tool: action.tool, args: action.args },
      ...(action.toolCallId ? { toolCallId: action.toolCallId } : {}),
      verdict: controlVerdict(v),
      evidence,
      app,
    },
  };
}

/** The budget question, when spending has reached `askAt` of the (granted) budget; else undefined. */
export function budgetWait(
  b: BudgetOptions | undefined,
  state: LoopState,
  evidence: Record<string, unknown>,
): NewWait | undefined {
  if (!b) return undefined;
  const scale = 1 + state.budgetGrants;
  const u = state.usage;
  const fractions = [
    b.maxToolCalls ? u.toolCalls / (b.maxToolCalls * scale) : 0,
    b.maxTokens ? (u.inputTokens + u.outputTokens) / (b.maxTokens * scale) : 0,
    b.maxCost ? u.cost / (b.maxCost * scale) : 0,
  ];
  const used = Math.max(...fractions);
  if (used < (b.askAt ?? 0.8)) return undefined;
  return controlWait(
    'budget',
    'budget',
    {
      tool: 'loop:budget',
      args: {
        used: Math.round(used * 100) / 100,
        usage: { ...u },
        limits: { maxToolCalls: b.maxToolCalls ?? null, maxTokens: b.maxTokens ?? null, maxCost: b.maxCost ?? null },
        grants: state.budgetGrants,
      },
    },
    {
      id: 'loop:budget',
      reason: `The thread has used ${Math.round(used * 100)}% of its budget. Approve to extend it, respond to narrow the scope (your message goes to the agent), reject to stop.`,
      role: b.role,
      ...(b.timeout ? { timeout: b.timeout } : {}),
      onTimeout: b.onTimeout ?? 'abort',
    },
    evidence,
    state.appState,
  );
}

/** A tool result as JSON (undefined becomes null). */
export function toJson(v: unknown): JsonValue {
  return v === undefined ? null : (JSON.parse(JSON.stringify(v)) as JsonValue);
}

/** What the agent tells the customer while a person decides. */
export function userFacing(kind: WaitKind, r: ApprovalRequest): string {
  // "a finance reviewer", "2 supervisors": a role is an identifier, the customer reads a person.
  const who = peopleOfRole(r.role, r.approvalsRequired);
  if (kind === 'approval' && r.tier === 'escalate')
    return `I've escalated this for a quick review by ${who}; I'll continue as soon as it's decided.`;
  if (kind === 'approval')
    return `This needs approval from ${who} before I can go ahead; I'll continue as soon as it's decided.`;
  if (kind === 'budget') return `I've paused to check with ${who} before doing more.`;
  return `I've asked ${who} to confirm; I'll continue once they answer.`;
}
