import type { Agent } from '@mastra/core/agent';
import type { Interlock, RunnerResult, ThreadRunner } from '../../engine/index.ts';
import type { CallGateOptions } from '../core/index.ts';

/** A Mastra agent of any tools and output. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyMastraAgent = Agent<string, any, any, any>;

/**
 * Options of every `generate` the adapter makes, as Mastra takes them (maxSteps, modelSettings,
 * instructions…), without the ones Interlock owns: the approval predicate (Interlock's policy answers
 * it), the run id (Interlock's checkpoint names it), per-run tool sets (they would run ungated) and
 * Mastra's memory (the conversation comes from Interlock's storage).
 */
export type MastraGenerateOptions = Record<string, unknown>;

/** Keys of {@link MastraGenerateOptions} the adapter refuses, with what to do instead. */
export const OWNED_OPTIONS: Record<string, string> = {
  requireToolApproval: "Interlock's policy decides which calls need a person: declare it in the policy.",
  runId: "Interlock's checkpoint names the Mastra run it resumes.",
  toolsets: 'give the agent its tools when you build it (new Agent({ tools })): tools handed per run are not gated.',
  clientTools: 'give the agent its tools when you build it (new Agent({ tools })): tools handed per run are not gated.',
  memory: "the conversation comes from Interlock's storage: leave Mastra's memory out of the adapter's runs.",
};

/** Options of {@link createMastraAgent}. */
export interface MastraAgentOptions extends Omit<CallGateOptions, 'interlock' | 'proposer'> {
  /** Threads carry this name; the worker resumes them with the agent of that name (default: the Mastra agent's id). */
  name?: string;
  /** Stored with each thread (default `1`). */
  version?: string;
  interlock: Interlock;
  /**
   * Your Mastra agent, registered on a `Mastra` with storage (`new Mastra({ agents, storage })`): its
   * tools are gated by Interlock from now on. Any storage will do (an `InMemoryStore` too): Interlock's
   * checkpoint carries the paused run's snapshot and writes it back before each resume.
   */
  agent: AnyMastraAgent;
  /** Options of every `generate` (see {@link MastraGenerateOptions}). */
  options?: MastraGenerateOptions;
}

/** What a run of an adapter thread came to. */
export interface MastraRunResult extends RunnerResult {
  /** The messages this run added to the thread (AI SDK model messages, as Mastra's `response.messages`). */
  messages: unknown[];
}

/** A message Interlock hands Mastra as input: a string, or AI SDK model messages. */
export type MastraInput = string | Array<{ role: string; content: unknown }>;

/** The Mastra agent behind Interlock. */
export interface MastraAgent extends ThreadRunner {
  /** The Mastra agent it gates. */
  readonly agent: AnyMastraAgent;
  /** Start a thread, or continue a finished one, with a user message (or messages). */
  invoke(input: MastraInput, opts?: { threadId?: string }): Promise<MastraRunResult>;
  /** Continue a paused thread once its requests are decided; returns `interrupt` again while any is pending. */
  resume(threadId: string): Promise<MastraRunResult>;
}
