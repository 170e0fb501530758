import type { CallGate, WaitingCall } from '../core/index.ts';
import type { ClaudeAgentOptions, ClaudeTool } from './types.ts';

/** What the hook needs beyond the turn: the call gate, the policy's names, the own tools' names, the model texts. */
export interface HookContext {
  gate: CallGate;
  policyName: (claudeName: string) => string;
  /** Whether Claude's tool is one of the adapter's own in-process tools (they run under the ledger themselves). */
  isOwn: (claudeName: string) => boolean;
  texts: { ask: (reason: string) => string; waiting: () => string; ranOnce: (requestId: string) => string };
}

/** What the adapter's turns share: the options, the thread's agent name, the gate, the hook's context, your tools' handlers. */
export interface ClaudeContext {
  o: ClaudeAgentOptions;
  name: string;
  gate: CallGate;
  hook: HookContext;
  originals: Map<string, ClaudeTool['handler']>;
}

/** A waiting call as the adapter saves it: the framework's call id, the request, and Claude's name of the tool. */
export type ClaudeWaiting = WaitingCall & { tool: string };
