import type { ModelMessage, ToolApprovalStatus, ToolSet, TypedToolCall } from 'ai';
import type { Interlock, RunnerResult, ThreadRunner } from '../../engine/index.ts';
import type { CallGateOptions } from '../core/index.ts';

/** What Interlock hands your generation call: pass all three to `generateText`. */
export interface GenerateInput<TOOLS extends ToolSet> {
  /** Your tools, each `execute` wrapped: it runs only under a recorded reason (policy or decision), at most once. */
  tools: TOOLS;
  /** The approval hook: Interlock's policy and recorded decisions answer it. */
  toolApproval: (options: { toolCall: TypedToolCall<TOOLS>; messages: ModelMessage[] }) => Promise<ToolApprovalStatus>;
  /** The thread's conversation, from Interlock's storage. */
  messages: ModelMessage[];
  threadId: string;
}

/** The part of a `generateText` result the adapter reads. */
export interface GenerateOutput {
  /** All messages the call added (v7: `result.responseMessages`). */
  responseMessages: ModelMessage[] | PromiseLike<ModelMessage[]>;
}

/** Options of {@link createAiSdkAgent}. */
export interface AiSdkAgentOptions<TOOLS extends ToolSet> extends Omit<CallGateOptions, 'interlock' | 'proposer'> {
  /** Threads carry this name; the worker resumes them with the agent of that name. */
  name: string;
  /** Stored with each thread (default `1`). */
  version?: string;
  interlock: Interlock;
  /** Your AI SDK tools, as you pass them to `generateText`. */
  tools: TOOLS;
  /**
   * One generation: your `generateText` call with everything of yours (model, system, stopWhen…)
   * and `tools`, `toolApproval` and `messages` from Interlock.
   */
  generate: (input: GenerateInput<TOOLS>) => PromiseLike<GenerateOutput> | GenerateOutput;
}

/** What a run of an adapter thread came to (see {@link ThreadRunner}). */
export interface AiSdkRunResult extends RunnerResult {
  /** The messages this run added. */
  messages: ModelMessage[];
}

/** The AI SDK agent behind Interlock. */
export interface AiSdkAgent extends ThreadRunner {
  /** Start a thread, or continue a finished one, with a user message (or messages). */
  invoke(input: string | ModelMessage[], opts?: { threadId?: string }): Promise<AiSdkRunResult>;
  /** Continue a paused thread once its requests are decided; returns `interrupt` again while any is pending. */
  resume(threadId: string): Promise<AiSdkRunResult>;
}
