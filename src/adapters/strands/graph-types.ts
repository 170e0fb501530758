import type { SessionManager } from '@strands-agents/sdk';
import type { BeforeNodeCallEvent, Graph, MultiAgentResult, Swarm } from '@strands-agents/sdk/multiagent';
import type { Interlock, RunnerResult, ThreadRunner } from '../../engine/index.ts';
import type { CallGateOptions } from '../core/index.ts';

/** Options of {@link createStrandsGraph}. */
export interface StrandsGraphOptions extends Omit<CallGateOptions, 'interlock' | 'proposer'> {
  /** Threads carry this name; the worker resumes them with the graph of that name. */
  name: string;
  /** Stored with each thread (default `1`). */
  version?: string;
  interlock: Interlock;
  /**
   * Build your `Graph` or `Swarm` — a new one per call — with `sessionManager: session`: Interlock's
   * checkpoint keeps the orchestrator's state through it, so any process resumes the thread.
   */
  orchestrator: (session: SessionManager, threadId: string) => Graph | Swarm | Promise<Graph | Swarm>;
  /**
   * The nodes that ask before they run, by node id, and what each asks about: the arguments the
   * reviewer sees and the policy's rules read. The question is a call of a "tool" named after the node
   * (a policy rule `cleanup: [{ tier: 'approve', role: 'operator' }]`); a node not listed runs unasked.
   */
  ask: Record<string, (event: BeforeNodeCallEvent) => Record<string, unknown> | Promise<Record<string, unknown>>>;
}

/** What a run of a Strands graph or swarm thread came to (see {@link ThreadRunner}). */
export interface StrandsGraphResult extends RunnerResult {
  /** The SDK's result of this run (undefined when nothing ran: busy, or every question still waiting). */
  result?: MultiAgentResult;
}

/** A Strands graph or swarm behind Interlock. */
export interface StrandsGraph extends ThreadRunner {
  /** Start a thread with a task. */
  invoke(input: string, opts?: { threadId?: string }): Promise<StrandsGraphResult>;
  /** Continue a paused thread once its questions are decided; `interrupt` again while any is pending. */
  resume(threadId: string): Promise<StrandsGraphResult>;
}
