import type { Duration, TimeoutDecision } from '../core/index.ts';

/** A call as hooks see it. */
export interface HookCall {
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
}

/** Ask a person before going on. */
export interface HookInterrupt {
  interrupt: {
    name: string;
    reason: string;
    role?: string;
    timeout?: Duration;
    onTimeout?: TimeoutDecision;
    details?: Record<string, unknown>;
  };
}

/** What `beforeToolCall` may return: go on (undefined), cancel with a message to the model, rewrite the args (policy re-runs), or ask a person. */
export type BeforeToolCallResult =
  undefined | { cancel: string } | { rewrite: Record<string, unknown> } | HookInterrupt;

/** What `beforeToolBatch` may return: go on, or one decision for the whole batch. */
export type BeforeToolBatchResult = undefined | HookInterrupt;

/** Hooks into the loop. */
export interface AgentHooks {
  /** Before each tool call (before the policy gate). */
  beforeToolCall?: (
    call: HookCall,
    ctx: { threadId: string; appState: Record<string, unknown> },
  ) => BeforeToolCallResult | Promise<BeforeToolCallResult>;
  /** Before a batch of parallel tool calls: one decision covers the batch. */
  beforeToolBatch?: (
    calls: HookCall[],
    ctx: { threadId: string; appState: Record<string, unknown> },
  ) => BeforeToolBatchResult | Promise<BeforeToolBatchResult>;
}
