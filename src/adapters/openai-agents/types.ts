import type { Agent, AgentInputItem, RunResult, RunState as RunStateType } from '@openai/agents-core';
import type { Interlock, RunnerResult, ThreadRunner, ToolSchemaEntry } from '../../engine/index.ts';
import type { CallGateOptions } from '../core/index.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyAgent = Agent<any, any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyResult = RunResult<any, any>;

/** The `RunState` class of the SDK the application uses (import it from `@openai/agents-core` or `@openai/agents`). */
export interface RunStateClass {
  fromString(agent: AnyAgent, serialized: string): Promise<RunStateType<unknown, AnyAgent>>;
}

/** Options of {@link createOpenAIAgentsAgent}. */
export interface OpenAIAgentsOptions extends Omit<CallGateOptions, 'interlock' | 'proposer'> {
  /** Threads carry this name; the worker resumes them with the agent of that name (default: the agent's name). */
  name?: string;
  /** Stored with each thread (default `1`). */
  version?: string;
  interlock: Interlock;
  /** Your agent, as written; its function tools are gated by Interlock. */
  agent: AnyAgent;
  /** `RunState` from the SDK package you use, to restore a paused run. */
  RunState: RunStateClass;
  /**
   * Zod schemas of the tools reviewers may edit, by tool name: the SDK keeps only a tool's JSON schema,
   * and an edit is validated before it is accepted (a tool without one can be approved, rejected or
   * answered, not edited).
   */
  schemas?: Record<string, ToolSchemaEntry['schema']>;
  /** One run: your `run(agent, input)` or `runner.run(agent, input)`, with the agent and input Interlock passes. */
  run: (agent: AnyAgent, input: string | AgentInputItem[] | RunStateType<unknown, AnyAgent>) => Promise<AnyResult>;
}

/** What a run of an adapter thread came to. */
export interface OpenAIAgentsRunResult extends RunnerResult {
  /** The SDK's result of this run (undefined when nothing ran: busy, or still waiting). */
  result?: AnyResult;
}

/** The OpenAI Agents SDK agent behind Interlock. */
export interface OpenAIAgentsAgent extends ThreadRunner {
  invoke(input: string, opts?: { threadId?: string }): Promise<OpenAIAgentsRunResult>;
  resume(threadId: string): Promise<OpenAIAgentsRunResult>;
}
