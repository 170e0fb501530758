import type { Duration, Reviewer, Tier, TimeoutDecision } from '../core/index.ts';
import type { Interlock, ModelTexts } from '../engine/index.ts';
import type { ThreadStatus } from '../store/types.ts';
import type { AgentHooks } from './hooks.ts';
import type { Message, ToolCallPart, AssistantMessage } from './messages.ts';
import type { LanguageModel } from './model.ts';
import type { WaitKind } from './state.ts';
import type { Tool } from './tool.ts';

/** Loop-control: ask a person when spending reaches a fraction of a budget. */
export interface BudgetOptions {
  maxToolCalls?: number;
  maxTokens?: number;
  maxCost?: number;
  /** Cost per input / output token, for `maxCost`. */
  costPerToken?: { input: number; output: number };
  /** Fraction of the budget at which to ask (default 0.8). */
  askAt?: number;
  role: string;
  timeout?: Duration;
  /** Default `abort`: an unanswered budget question stops the thread. */
  onTimeout?: 'abort' | 'reject';
}

/** Loop-control: ask a person before acting on a low-confidence turn. */
export interface ConfidenceOptions {
  /** Score of a model turn that calls tools, 0..1. */
  score: (turn: { message: AssistantMessage; toolCalls: ToolCallPart[] }) => number | Promise<number>;
  threshold: number;
  role: string;
  timeout?: Duration;
  onTimeout?: TimeoutDecision;
}

/** Options of {@link createAgent}. */
export interface AgentOptions {
  /** Agent name, recorded on threads (the worker finds the agent of a thread by it). */
  name: string;
  /** Agent version, recorded in checkpoints. */
  version: string;
  model: LanguageModel;
  system: string;
  tools: Tool[];
  interlock: Interlock;
  hooks?: AgentHooks;
  /** Model calls per thread before stopping with `max_iterations` (default 20). */
  maxIterations?: number;
  /** Who proposes actions; may not approve them (default `agent:<name>`). */
  identity?: string;
  /** Role asked by tool and hook interrupts that name none (default `supervisor`). */
  interruptRole?: string;
  budget?: BudgetOptions;
  confidence?: ConfidenceOptions;
  /** May a checkpoint from agent version `from` resume on this version `to`? (default: same major). */
  compatibleVersions?: (from: string, to: string) => boolean;
  /** Lease on a thread while a loop runs it, and on its execution claims (default: the engine's `leaseMs`). */
  leaseMs?: number;
  /** What the model is told about a call that was blocked, rejected, timed out or cancelled (neutral defaults). */
  texts?: Partial<ModelTexts>;
}

/** An answer given in-process to an interrupt; recorded through the engine like a reviewer's. */
export type InterruptResponse =
  | { type: 'approve'; trust?: boolean }
  | { type: 'edit'; args: Record<string, unknown> }
  | { type: 'reject'; message?: string }
  | { type: 'respond'; message: string };

/** Options of one invocation. */
export interface InvokeOptions {
  threadId?: string;
  /** Answers keyed by interrupt id. */
  responses?: Record<string, InterruptResponse>;
  /** Who answers `responses` (required with them). */
  reviewer?: Reviewer;
  /** Application facts for policy rules and tools; kept in the thread's state. */
  app?: Record<string, unknown>;
}

/** A pause, as the caller sees it. */
export interface Interrupt {
  /** Stable id: the approval request id. Answer with `responses[id]` or a reviewer decision. */
  id: string;
  kind: WaitKind;
  /** Tool name, or the interrupt's name. */
  name: string;
  reason: string;
  toolCallId?: string;
  args?: Record<string, unknown>;
  tier: Tier;
  role: string;
  approvalsRequired: number;
  expiresAt: number;
  /** A sentence the app can show the end user, e.g. "I've asked a supervisor to review this refund." */
  message: string;
  /** Inside a tree of agents: the agents from the root down to the one that asked (also `context.agentPath` on the request). */
  path?: string[];
}

/** Why the loop stopped. */
export type StopReason = 'end_turn' | 'interrupt' | 'max_iterations' | 'aborted' | 'busy';

/** What `invoke` returns. A pause is a value: `stopReason: 'interrupt'` with `interrupts`. */
export interface AgentResult {
  threadId: string;
  stopReason: StopReason;
  status: ThreadStatus;
  interrupts: Interrupt[];
  messages: Message[];
  /** The last assistant text. */
  text: string;
  usage: { inputTokens: number; outputTokens: number; toolCalls: number; cost: number };
}

/** An agent whose tool calls pass the policy gate and pause durably for people. */
export interface Agent {
  readonly name: string;
  readonly version: string;
  /**
   * Run the loop on a thread: with `input` a new user turn, with `responses`
   * answers to its interrupts, with neither a plain resume. Returns when the
   * turn ends or the thread pauses (`stopReason: 'interrupt'`).
   */
  invoke(input: string | null, opts?: InvokeOptions): Promise<AgentResult>;
  /** Continue a thread after reviewers decided (what the resume worker calls). */
  resume(threadId: string): Promise<AgentResult>;
  /** Stop a thread at its next boundary; a paused thread stops now and its open requests are cancelled. */
  abort(threadId: string, by?: string): Promise<void>;
  /** The stored conversation of a thread. */
  messages(threadId: string): Promise<Message[]>;
}

/** The agent's fixed parts, prepared once by createAgent. */
export interface AgentRuntime {
  opts: AgentOptions;
  tools: Map<string, Tool>;
  toolDefs: Array<{ type: 'function'; name: string; description: string; inputSchema: Record<string, unknown> }>;
  identity: string;
  interruptRole: string;
  maxIterations: number;
  /** What the model is told about calls that did not run as proposed. */
  texts: ModelTexts;
  /** An agent this one may hand the conversation to (directly or through others), by name. */
  peer(name: string): AgentRuntime | undefined;
}

/** Where a run sits in a tree of agents: the root thread, its parent thread, and the agents from the root down. */
export interface TreeInfo {
  rootThreadId: string;
  parentThreadId: string;
  /** Agent (or graph and node) names from the root to this run's agent. */
  path: string[];
}
