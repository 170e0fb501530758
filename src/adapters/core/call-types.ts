import type { ApprovalRequest } from '../../core/index.ts';
import type { CallOutcome, GateVerdict, Interlock, ModelTexts, PauseItem } from '../../engine/index.ts';

/** The adapter core's shapes: a framework's call, where it stands, and the gate's operations. */

/** One tool call as a framework proposes it: the thread, the framework's call id, the tool and its input. */
export interface AdapterCall {
  threadId: string;
  toolCallId: string;
  tool: string;
  args: Record<string, unknown>;
  /** Trust grants older than this (epoch ms) do not lower the call's tier: trust scoped to a session or a time box. */
  trustSince?: number;
}

/**
 * Where a call stands for Interlock, whatever the framework:
 * - `run`: the policy lets it run (auto / notify, or a thread's trust grant): run it under the ledger;
 * - `block`: the policy refuses it; `message` is what the model sees;
 * - `ask`: it needs a person and has no request yet: pause and open one;
 * - `wait`: its request is pending;
 * - `approved`: authorized; `args` are what runs (the reviewer's edit, if any). `mismatch` is set when the
 *   framework now proposes other arguments than the ones authorized (an altered history): it must not run;
 * - `not_run`: rejected, answered, expired or cancelled; `message` is the tool result the model sees.
 */
export type CallCheck =
  /**
   * Runs without a person. `key` is its idempotency key when the run derived one from what was saved
   * (see {@link CallGate.forRun}); otherwise thread + call id. `fresh`: the key was minted for this
   * call alone and no repeat can name it (the MCP gateway's automatic call without a client call id),
   * so nothing is claimed before it runs: its ledger row and audit event are written after it, in one
   * commit shared with concurrent calls' (`ExecuteOptions.unclaimed`).
   */
  | { kind: 'run'; verdict: GateVerdict; key?: string; fresh?: boolean }
  /**
   * Refused before anything runs: by the policy (`blocked`), or because the step proposed two calls
   * under one call id (`duplicate_call_id`) — the framework keys results and approvals by that id, so
   * it could not keep them apart and would pair one call's arguments with the other's verdict.
   */
  | { kind: 'block'; verdict: GateVerdict; message: string; code?: 'blocked' | 'duplicate_call_id' }
  | { kind: 'ask'; verdict: GateVerdict }
  | { kind: 'wait'; outcome: Extract<CallOutcome, { state: 'pending' }> }
  | {
      kind: 'approved';
      outcome: Extract<CallOutcome, { state: 'approved' }>;
      args: Record<string, unknown>;
      mismatch: boolean;
    }
  | {
      kind: 'not_run';
      outcome: Exclude<CallOutcome, { state: 'pending' | 'approved' }>;
      message: string;
      /** The reviewer answered in place of the tool (`respond`): the message is the tool's result. */
      answered: boolean;
    };

/** Options of {@link createCallGate}. */
export interface CallGateOptions {
  interlock: Interlock;
  /** Who proposes the calls (the agent's name), as audit and reviewers see it. */
  proposer: string;
  /** Application facts the policy's rules may read, per thread (customer tier, channel…). */
  app?: (threadId: string) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /** What the model is told about calls that did not run as proposed (defaults: neutral, no reviewer named). */
  texts?: Partial<ModelTexts>;
  /** Material for the reviewer (redacted before storage), per call. */
  evidence?: (call: AdapterCall) => Record<string, unknown> | undefined | Promise<Record<string, unknown> | undefined>;
}

/** What running a call under the ledger came to. */
export type CallRun<T> =
  | { status: 'succeeded'; result: T; args: Record<string, unknown>; edited: boolean; by?: string; replayed: boolean }
  | { status: 'failed'; error: string; replayed: boolean }
  /** Not run: no recorded decision lets it run (pending, refused, altered input, or still running elsewhere). */
  | { status: 'refused'; code: string; message: string };

/** A paused call of a saved run: the framework's call id and the request Interlock opened for it. */
export interface WaitingCall {
  toolCallId: string;
  requestId: string;
}

/**
 * The calls of one framework run of a thread. A call that paused in an earlier run is found by the
 * request the saved state names for it — never by its call id alone, which a model (or a proxy in
 * between) may repeat within a step or in a later turn. A call id proposed twice in one step refuses
 * every call under it, before anything runs.
 */
export interface RunCalls {
  /**
   * Where the call stands. `step` identifies the model step that proposed it (any object the
   * framework hands over per step, such as the AI SDK's step messages); omit it when the framework
   * refuses repeated ids itself.
   */
  check(call: AdapterCall, step?: object): Promise<CallCheck>;
  /** The last check of a call id in this run (for the framework's later execute of the same call). */
  known(toolCallId: string): CallCheck | undefined;
  /** The request a saved run paused the call on, if any. */
  waitingFor(toolCallId: string): WaitingCall | undefined;
  /**
   * What the framework stopped on, as a pause: each call that needs a person gets a request id and a
   * pause item (opened by the run's save), each call whose request is pending already keeps it —
   * never a second one. `extra` rides along with the call's waiting entry (the AI SDK's approval id).
   */
  collectPause<E extends object = Record<never, never>>(
    stopped: ReadonlyArray<{ call: AdapterCall; extra?: E }>,
  ): Promise<{ items: PauseItem[]; waiting: Array<WaitingCall & E>; known: ApprovalRequest[] }>;
}

/** The adapter core: gate, find the request of a call, decide what a decision means, run once. */
export interface CallGate {
  /** The model-facing texts in force (the agent's own over the defaults). */
  readonly texts: ModelTexts;
  /**
   * The calls of one run of a thread that continues a saved run waiting on `waiting`. With `turn` —
   * what the run started from: the messages the thread had saved and a digest of the run's input
   * ({@link runTurn}) — a call that runs without a person
   * is keyed by the turn, its action and how many times this run made that action before it, not by
   * the provider's call id: a run that crashed after the tool ran and before it was saved, retried
   * with the same input, makes the same calls under the same keys, even when the model gives them
   * new random ids, so the ledger replays their outcome instead of running them again.
   */
  forRun(threadId: string, waiting?: readonly WaitingCall[], turn?: string): RunCalls;
  /** Where the call a request was opened for stands (a resume that knows its requests). */
  decisionOf(requestId: string): Promise<Extract<CallCheck, { kind: 'wait' | 'approved' | 'not_run' }>>;
  /** Where the call stands: its request (by thread + call id) if it has one, else the policy's verdict. */
  check(call: AdapterCall): Promise<CallCheck>;
  /**
   * Where a paused call's decision stands (its request by thread + call id), whatever arguments the
   * framework now holds: `undefined` if the call never paused. For resuming: which calls to approve,
   * deny or answer.
   */
  decision(
    threadId: string,
    toolCallId: string,
  ): Promise<Extract<CallCheck, { kind: 'wait' | 'approved' | 'not_run' }> | undefined>;
  /** The policy's verdict alone, for a call known to have no request yet (saves the lookup). */
  verdict(call: AdapterCall): Promise<Extract<CallCheck, { kind: 'run' | 'block' | 'ask' }>>;
  /** A pause item for a call whose check is `ask`. */
  pauseItem(call: AdapterCall, check: Extract<CallCheck, { kind: 'ask' }>): Promise<PauseItem>;
  /**
   * Run the call's side effect at most once, only with a recorded reason to: an auto/notify verdict
   * (keyed by thread + call id) or an authorized request (keyed by request + action hash, with the
   * authorized arguments). `fn` receives the arguments that run and the idempotency key.
   */
  run<T>(
    call: AdapterCall,
    fn: (args: Record<string, unknown>, run: { idempotencyKey: string; attempt: number }) => Promise<T>,
    known?: CallCheck,
  ): Promise<CallRun<T>>;
  /** Record a policy refusal in the audit log (once per call id). */
  recordBlock(call: AdapterCall, check: Extract<CallCheck, { kind: 'block' }>): Promise<void>;
}
