import type { ModelMessage, ToolSet } from 'ai';
import type { ApprovalRequest } from '../../core/index.ts';
import { interruptsOf, lastText, type CallGate } from '../core/index.ts';
import type { AiSdkAgentOptions, AiSdkRunResult } from './types.ts';

/** What the adapter's runs share: the options, the call gate, and the app's own tools' `execute`, guarded. */
export interface AiSdkContext<TOOLS extends ToolSet> {
  o: AiSdkAgentOptions<TOOLS>;
  gate: CallGate;
  /** The app's tools' `execute` functions by tool name: only Interlock's wrapped tools call them. */
  originals: Map<string, unknown>;
}

/** How `generate` must hand the SDK Interlock's tools: said by every wiring error. */
export const HOW =
  "Pass everything `generate` receives to generateText — `generateText({ model, ...input })` — so the SDK gets Interlock's `tools` and `toolApproval`, not your own tools.";

/** A run's result: how it stopped, its last text, the requests it waits on and the messages it added. */
export function runResult(
  threadId: string,
  stopReason: string,
  messages: ModelMessage[],
  pending: readonly ApprovalRequest[],
): AiSdkRunResult {
  return { threadId, stopReason, text: lastText(messages), interrupts: interruptsOf(pending), messages };
}
