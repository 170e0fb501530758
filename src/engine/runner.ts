/** A pause as a runner reports it: the request a person must decide. */
export interface RunnerInterrupt {
  /** The approval request's id. */
  id: string;
  /** The tool (or question) it is about. */
  name: string;
  tier: string;
  role: string;
  /** The framework's tool-call id, when the pause is a framework's call (adapters). */
  toolCallId?: string | null;
  /** A sentence the application can show its user. */
  message: string;
}

/** What a run of a thread came to. */
export interface RunnerResult {
  threadId: string;
  /** `end_turn`, `interrupt`, `busy` (another run holds the thread), `aborted`, … */
  stopReason: string;
  /** The last assistant text, if any. */
  text: string;
  interrupts: readonly RunnerInterrupt[];
}

/**
 * What the worker, the service and the CLI need of an agent to run its
 * threads: a native Interlock agent, or a framework's agent behind an adapter
 * (`interlock-approvals/ai-sdk`, `interlock-approvals/openai-agents`). A thread is resumed by the
 * runner whose `name` it carries.
 */
export interface ThreadRunner {
  readonly name: string;
  readonly version: string;
  /** Start (or continue) a thread with a user message. */
  invoke(input: string, opts?: { threadId?: string }): Promise<RunnerResult>;
  /** Continue a paused thread after decisions; `busy` when another run holds it. */
  resume(threadId: string): Promise<RunnerResult>;
  /** Stop a thread: a paused one now, a running one at its next boundary. */
  abort(threadId: string, by?: string): Promise<unknown>;
}
