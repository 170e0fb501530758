import type { z } from 'zod';
import type { Duration, Reviewer, TimeoutDecision } from '../core/index.ts';
import type { Interlock } from '../engine/index.ts';
import type { ThreadStatus } from '../store/types.ts';
import type { Wait } from './state.ts';
import type { InterruptAnswer, InterruptRequest } from './tool.ts';
import type { Agent, Interrupt, InterruptResponse } from './types.ts';

/** What a node function sees besides its input. */
export interface NodeContext {
  threadId: string;
  node: string;
  /** The graph's step (superstep) this node runs in, from 0. */
  step: number;
  /** Outputs of the nodes finished so far (the latest run of each). */
  outputs: Readonly<Record<string, unknown>>;
  /**
   * Ask a person from inside the node and wait durably. The first time, the node stops here and the
   * graph pauses; once answered, the node runs again from its top and this call returns the answer
   * (answers come back in order). Do side effects after the questions.
   */
  interrupt: (request: InterruptRequest) => InterruptAnswer;
}

/** A node: an agent (its final text is the output) or a function of its input. */
export type GraphNode =
  | {
      /** A native agent from `createAgent`; it runs on a child thread of the graph's, gated and durable like any agent. */
      agent: Agent;
      description?: string;
    }
  | {
      /** A function of the node's input; its return value (JSON) is the output. Runs again from its top after a pause. */
      run: (input: unknown, ctx: NodeContext) => unknown;
      /** Schema of the node's input, for a reviewer's edit (default: any JSON). */
      input?: z.ZodType;
      description?: string;
    };

/** An edge: after `from` finishes, `to` runs next (if `when` says so) with `from`'s output as input. */
export interface GraphEdge {
  from: string;
  to: string;
  /** Take this edge only when it returns true (the output of `from`, and every output so far). */
  when?: (output: unknown, outputs: Readonly<Record<string, unknown>>) => boolean;
}

/** What a `beforeNode` hook sees. */
export interface BeforeNodeEvent {
  threadId: string;
  node: string;
  step: number;
  /** The node's input, as edits so far left it. */
  input: unknown;
  outputs: Readonly<Record<string, unknown>>;
}

/** A question a `beforeNode` hook asks about the node; the reviewer's verb applies to the node. */
export interface NodeInterruptRequest {
  name: string;
  reason: string;
  role?: string;
  details?: Record<string, unknown>;
  timeout?: Duration;
  onTimeout?: TimeoutDecision;
}

/** How a reviewer's verb on a `beforeNode` question acts on the node. */
export type NodeAnswer =
  | { type: 'approve'; by: string }
  | { type: 'edit'; by: string; input: unknown }
  | { type: 'reject'; by: string; message: string }
  | { type: 'respond'; by: string; message: string };

/**
 * Runs before a node. It may ask a person with `interrupt` (several times, one question at a
 * time); each call returns the answer once given: approve runs the node, edit replaces its input,
 * reject cancels it (downstream nodes see `{ cancelled: true, message }`), respond supplies its
 * output without running it. Hooks run again from the top after each answer: keep them deterministic.
 */
export type BeforeNodeHook = (
  event: BeforeNodeEvent,
  ctx: { interrupt: (q: NodeInterruptRequest) => NodeAnswer },
) => unknown;

/** Options of {@link createGraph}. */
export interface GraphOptions {
  /** Recorded on the graph's threads; the worker finds the graph of a thread by it. */
  name: string;
  version: string;
  interlock: Interlock;
  nodes: Record<string, GraphNode>;
  edges?: GraphEdge[];
  /** The node (or nodes, run concurrently) the input goes to. */
  start: string | string[];
  hooks?: { beforeNode?: BeforeNodeHook[] };
  /** Role asked by interrupts that name none (default `supervisor`). */
  interruptRole?: string;
  /** Steps before the graph stops with `max_iterations` (default 25). */
  maxSteps?: number;
  /** Lease on a thread while the graph runs it (default: the engine's `leaseMs`). */
  leaseMs?: number;
}

/** One node's run in a step, as checkpointed. */
export interface GraphTask {
  node: string;
  input: unknown;
  status: 'todo' | 'waiting' | 'done';
  output?: unknown;
  /** Answers to the `beforeNode` hooks' questions, in order. */
  hookAnswers: NodeAnswer[];
  /** The hooks have all passed (or one decided the node's fate): they are not asked again. */
  hooksDone?: boolean;
  /** Answers to the node's own `interrupt` calls, in order. */
  answers: InterruptAnswer[];
  wait?: Wait;
  /** An agent node: the child thread it runs on. */
  child?: string;
}

/** A graph thread's state between steps. */
export interface GraphState {
  v: 1;
  graphVersion: string;
  /** The current step; steps count on across inputs of the thread. */
  step: number;
  /** The step this input started at (for `maxSteps`). */
  first?: number;
  tasks: GraphTask[];
  outputs: Record<string, unknown>;
}

/** Options of a graph's `invoke`. */
export interface GraphInvokeOptions {
  threadId?: string;
  /** Answers keyed by interrupt id (needs `reviewer`). */
  responses?: Record<string, InterruptResponse>;
  reviewer?: Reviewer;
}

/** What a graph's run came to. */
export interface GraphResult {
  threadId: string;
  stopReason: 'end_turn' | 'interrupt' | 'max_iterations' | 'aborted' | 'busy';
  status: ThreadStatus;
  interrupts: Interrupt[];
  /** Each finished node's output (the latest run of each). */
  outputs: Record<string, unknown>;
  /** The output of the nodes that ran last, as text. */
  text: string;
}

/** A graph of agents and functions whose nodes pause durably for people. */
export interface Graph {
  readonly name: string;
  readonly version: string;
  invoke(input: string, opts?: GraphInvokeOptions): Promise<GraphResult>;
  resume(threadId: string): Promise<GraphResult>;
  abort(threadId: string, by?: string): Promise<void>;
}
