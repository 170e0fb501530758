import type { Agent, AgentResult, InterruptResponseContentData } from '@strands-agents/sdk';
import type { Interlock, RunnerResult, ThreadRunner, ToolSchemaEntry } from '../../engine/index.ts';
import type { CallGateOptions } from '../core/index.ts';

/** What Interlock hands your `run`: the agent to invoke, and what to invoke it with. */
export type StrandsRunInput = string | InterruptResponseContentData[];

/** Options of {@link createStrandsAgent}. */
export interface StrandsAgentOptions extends Omit<CallGateOptions, 'interlock' | 'proposer'> {
  /** Threads carry this name; the worker resumes them with the agent of that name. */
  name: string;
  /** Stored with each thread (default `1`). */
  version?: string;
  interlock: Interlock;
  /**
   * Build your Strands agent — model, tools, system prompt, plugins, session manager — a new one per
   * call: Interlock builds one for each run of a thread and loads the thread's saved state into it.
   */
  agent: (threadId: string) => Agent | Promise<Agent>;
  /**
   * Zod schemas of the tools reviewers may edit, by tool name (the agent keeps a tool's JSON schema
   * only; an edit is validated before it is accepted, and a tool without one cannot be edited).
   */
  schemas?: Record<string, ToolSchemaEntry['schema']>;
  /**
   * One invocation (default `(agent, input) => agent.invoke(input)`): pass your own to add invoke
   * options. Invoke the agent Interlock hands you, with the input it hands you.
   */
  run?: (agent: Agent, input: StrandsRunInput) => Promise<AgentResult>;
}

/** What a run of a Strands thread came to (see {@link ThreadRunner}). */
export interface StrandsRunResult extends RunnerResult {
  /** The SDK's result of this run (undefined when nothing ran: busy, or every call still waiting). */
  result?: AgentResult;
}

/** The Strands agent behind Interlock. */
export interface StrandsAgent extends ThreadRunner {
  /** Start a thread, or continue a finished one, with a user message. */
  invoke(input: string, opts?: { threadId?: string }): Promise<StrandsRunResult>;
  /**
   * Continue a paused thread once its requests are decided: each decided call's interrupt is answered
   * with the reviewer's decision; `interrupt` again while every call still waits.
   */
  resume(threadId: string): Promise<StrandsRunResult>;
}

/** What the adapter keeps of a Strands run in Interlock's checkpoint (the `framework` field). */
export interface StrandsSaved {
  /** The agent's session snapshot (`takeSnapshot({ preset: 'session' })`): messages, state, interrupts. */
  snapshot: unknown;
  /** The tracking id of the last agent message saved as a thread message. */
  last?: string;
}
