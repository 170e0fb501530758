import { randomBytes } from 'node:crypto';
import {
  BeforeToolCallEvent,
  BeforeToolsEvent,
  type Agent,
  type Message,
  type Tool,
  type ToolUseData,
} from '@strands-agents/sdk';
import type { AdapterCall, CallCheck, CallGate, RunCalls } from '../core/index.ts';
import { AnswerTool, GatedTool, type ToolStream } from './gated-tool.ts';

/** The name of the interrupts Interlock raises (the SDK's interrupt id is `hook:beforeToolCall:<call id>:<name>`). */
export const INTERRUPT_NAME = 'interlock-approval';

/** A call the run stopped on, and the interrupt the SDK keeps for it. */
export interface StoppedCall {
  call: AdapterCall;
  extra: { interruptId: string };
}

/** Interlock's hooks on one agent for one run: the calls the run stopped on, and how to take the hooks off. */
export interface AttachedGate {
  stopped: StoppedCall[];
  detach(): void;
}

/** The call a tool use is, for Interlock. */
export function callOf(threadId: string, use: Pick<ToolUseData, 'name' | 'toolUseId' | 'input'>): AdapterCall {
  const args = use.input && typeof use.input === 'object' && !Array.isArray(use.input) ? use.input : {};
  return { threadId, toolCallId: use.toolUseId, tool: use.name, args };
}

/**
 * Interlock as the agent's hook provider for one run. `BeforeToolsEvent` checks every call of the
 * model's step at once (a call id proposed twice refuses all calls under it, before any runs);
 * `BeforeToolCallEvent` then, per call: runs it under the ledger (policy or recorded decision) in
 * place of the tool's own, cancels it with the model-facing text (block, reject, expiry), answers
 * it (respond), or raises an interrupt that Interlock's request backs.
 */
export function attachGate(
  gate: CallGate,
  agent: Agent,
  threadId: string,
  calls: RunCalls,
  originals: ReadonlyMap<string, { tool: Tool; stream: ToolStream }>,
): AttachedGate {
  const stopped: StoppedCall[] = [];
  const offTools = agent.addHook(BeforeToolsEvent, async (e) => {
    for (const use of toolUses(e.message)) await calls.check(callOf(threadId, use), e.message);
  });
  const offCall = agent.addHook(BeforeToolCallEvent, async (e) => {
    const call = callOf(threadId, e.toolUse);
    const c = calls.known(call.toolCallId) ?? (await calls.check(call));
    switch (c.kind) {
      case 'block':
        await gate.recordBlock(call, c);
        e.cancel = c.message;
        return;
      case 'not_run':
        // A reviewer's answer stands in for the tool's result; any other refusal is the call's error.
        if (c.answered) e.selectedTool = new AnswerTool(call.tool, c.message);
        else e.cancel = c.message;
        return;
      case 'ask':
      case 'wait':
        raise(e, call, c, stopped);
        return;
      default: {
        const own = originals.get(call.tool);
        if (!own) {
          e.cancel = `Not run: ${call.tool} is not one of the agent's tools.`;
          return;
        }
        e.selectedTool = new GatedTool(gate, own.tool, own.stream, call, c);
      }
    }
  });
  return {
    stopped,
    detach() {
      offTools();
      offCall();
    },
  };
}

/**
 * Pause the call the SDK's way (a tool call's or a graph node's event). The interrupt's answer is never the authority: the SDK returns one
 * when the saved state holds a response (Interlock answers only decided calls), so an answered
 * interrupt on a call Interlock still waits on was written by someone else — raise a fresh one.
 */
export function raise<E extends object>(
  e: { interrupt: BeforeToolCallEvent['interrupt'] },
  call: AdapterCall,
  c: Extract<CallCheck, { kind: 'ask' | 'wait' }>,
  stopped: Array<{ call: AdapterCall; extra: { interruptId: string } & E }>,
  extra: E = {} as E,
): void {
  const reason = {
    tool: call.tool,
    args: call.args,
    ...(c.kind === 'wait' ? { requestId: c.outcome.request.id } : { tier: c.verdict.tier, why: c.verdict.reason }),
  } as Parameters<BeforeToolCallEvent['interrupt']>[0]['reason'];
  for (const name of [INTERRUPT_NAME, `${INTERRUPT_NAME}:${randomBytes(4).toString('hex')}`]) {
    try {
      e.interrupt({ name, reason });
    } catch (err) {
      const id = (err as { interrupts?: Array<{ id: string }> }).interrupts?.[0]?.id;
      if (id) stopped.push({ call, extra: { ...extra, interruptId: id } });
      throw err;
    }
  }
}

/** The model's tool uses in a step. */
function toolUses(message: Message): ToolUseData[] {
  return message.content.flatMap((b) => (b.type === 'toolUseBlock' ? [b as unknown as ToolUseData] : []));
}
