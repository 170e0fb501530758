import { actionHash, InterlockUsageError, isInterrupting, redact } from '../../core/index.ts';
import {
  auditEvent,
  blockedText,
  idempotencyKey,
  modelTexts,
  notRunText,
  type ModelTexts,
  type CallOutcome,
  type GateVerdict,
  type Interlock,
  type PauseItem,
} from '../../engine/index.ts';

/** One tool call as a framework proposes it: the thread, the framework's call id, the tool and its input. */
export interface AdapterCall {
  threadId: string;
  toolCallId: string;
  tool: string;
  args: Record<string, unknown>;
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
   * (see {@link CallGate.forRun}); otherwise thread + call id.
   */
  | { kind: 'run'; verdict: GateVerdict; key?: string }
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
}

/** The adapter core: gate, find the request of a call, decide what a decision means, run once. */
export interface CallGate {
  /** The model-facing texts in force (the agent's own over the defaults). */
  readonly texts: ModelTexts;
  /**
   * The calls of one run of a thread that continues a saved run waiting on `waiting`. With `turn` —
   * how many messages the thread had saved when the run started — a call that runs without a person
   * is keyed by the turn, its action and how many times this run made that action before it, not by
   * the provider's call id: a run that crashed after the tool ran and before it was saved, retried
   * with the same input, makes the same calls under the same keys, even when the model gives them
   * new random ids, so the ledger replays their outcome instead of running them again.
   */
  forRun(threadId: string, waiting?: readonly WaitingCall[], turn?: number): RunCalls;
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

/** Build the adapter core over the engine. Every framework adapter uses this one; none gates or decides itself. */
export function createCallGate(o: CallGateOptions): CallGate {
  const il = o.interlock;
  const texts = modelTexts(o.texts);
  const blocked = new Set<string>();

  async function check(call: AdapterCall): Promise<CallCheck> {
    // A call id may repeat (in a step, or a later turn): the request is the one opened for these arguments.
    const outcome = await il.callOutcome(call.threadId, call.toolCallId, actionHash(call.tool, call.args));
    return outcome ? fromOutcome(call, outcome) : verdictFor(call);
  }

  async function verdictFor(call: AdapterCall): Promise<Extract<CallCheck, { kind: 'run' | 'block' | 'ask' }>> {
    const verdict = await il.gate(
      { tool: call.tool, args: call.args },
      { threadId: call.threadId, proposer: o.proposer, app: (await o.app?.(call.threadId)) ?? {} },
    );
    if (verdict.tier === 'block') return { kind: 'block', verdict, message: blockedText(verdict.reason, texts) };
    if (isInterrupting(verdict.tier)) return { kind: 'ask', verdict };
    return { kind: 'run', verdict };
  }

  function fromOutcome(
    call: AdapterCall | undefined,
    outcome: CallOutcome,
  ): Extract<CallCheck, { kind: 'wait' | 'approved' | 'not_run' }> {
    switch (outcome.state) {
      case 'pending':
        return { kind: 'wait', outcome };
      case 'approved': {
        // An edit authorizes the reviewer's arguments, whatever the framework's history says; an
        // approval authorizes exactly the arguments asked about, so other ones must not run.
        // The framework's call must still be the one asked about (the edit's original arguments).
        const mismatch = call !== undefined && actionHash(call.tool, call.args) !== outcome.askedHash;
        return { kind: 'approved', outcome, args: outcome.args, mismatch };
      }
      default:
        return {
          kind: 'not_run',
          outcome,
          message: notRunText(outcome, texts),
          answered: outcome.state === 'responded',
        };
    }
  }

  function forRun(threadId: string, waiting: readonly WaitingCall[] = [], turn?: number): RunCalls {
    const paused = new Map(waiting.map((w) => [w.toolCallId, w]));
    const made = new Map<string, number>();
    const keyed = (call: AdapterCall, c: CallCheck): CallCheck => {
      if (c.kind !== 'run' || turn === undefined) return c;
      const hash = actionHash(call.tool, call.args);
      const n = made.get(hash) ?? 0;
      made.set(hash, n + 1);
      return { ...c, key: `${threadId}:${turn}:${hash}:${n}` };
    };
    const checks = new Map<string, CallCheck>();
    const steps = new WeakMap<object, Set<string>>();
    const collided = new Set<string>();
    const duplicate = (call: AdapterCall): Extract<CallCheck, { kind: 'block' }> => ({
      kind: 'block',
      code: 'duplicate_call_id',
      message: `Two calls in one step used the same call id (${call.toolCallId}); none of them ran. Propose each call again with its own id.`,
      verdict: {
        tier: 'block',
        ruleId: 'interlock:duplicate_call_id',
        reason: 'duplicate_call_id',
        role: null,
        approvalsRequired: 0,
        timeoutMs: 0,
        onTimeout: 'reject',
        escalateTo: null,
        trustable: false,
        matched: [],
      },
    });
    return {
      async check(call, step) {
        if (step) {
          const seen = steps.get(step) ?? new Set<string>();
          steps.set(step, seen);
          if (seen.has(call.toolCallId)) collided.add(call.toolCallId);
          seen.add(call.toolCallId);
        }
        if (collided.has(call.toolCallId)) {
          const c = duplicate(call);
          checks.set(call.toolCallId, c);
          return c;
        }
        const w = paused.get(call.toolCallId);
        const c = w ? fromOutcome(call, await il.requestOutcome(w.requestId)) : keyed(call, await verdictFor(call));
        checks.set(call.toolCallId, c);
        return c;
      },
      known: (id) => checks.get(id),
      waitingFor: (id) => paused.get(id),
    };
  }

  return {
    texts,
    check,
    forRun,
    async decisionOf(requestId) {
      return fromOutcome(undefined, await il.requestOutcome(requestId));
    },
    verdict: verdictFor,
    async decision(threadId, toolCallId) {
      const outcome = await il.callOutcome(threadId, toolCallId);
      return outcome ? fromOutcome(undefined, outcome) : undefined;
    },
    async pauseItem(call, c) {
      const app = (await o.app?.(call.threadId)) ?? {};
      const evidence = await o.evidence?.(call);
      return {
        call: { tool: call.tool, args: call.args },
        toolCallId: call.toolCallId,
        verdict: c.verdict,
        app,
        ...(evidence ? { evidence } : {}),
      };
    },
    async recordBlock(call, c) {
      const key = `${call.threadId}\u0000${call.toolCallId}\u0000${actionHash(call.tool, call.args)}`;
      if (blocked.has(key)) return;
      blocked.add(key);
      const event = auditEvent(
        'refused',
        'system:policy',
        {
          tool: call.tool,
          args: redact(call.args),
          toolCallId: call.toolCallId,
          ruleId: c.verdict.ruleId,
          reason: c.verdict.reason,
          code: c.code ?? 'blocked',
        },
        { threadId: call.threadId },
      );
      await il.audit.record([event]);
    },
    async run(call, fn, known) {
      const c = known ?? (await check(call));
      let key: string;
      let args: Record<string, unknown>;
      let requestId: string | null = null;
      let why: Record<string, unknown>;
      let notifyRole: string | null = null;
      let edited = false;
      let by: string | undefined;
      switch (c.kind) {
        case 'run':
          key = c.key ?? `${call.threadId}:${call.toolCallId}`;
          args = call.args;
          why = {
            tier: c.verdict.tier,
            ruleId: c.verdict.ruleId,
            reason: c.verdict.reason,
            toolCallId: call.toolCallId,
            ...(c.verdict.trustedBy ? { trustedBy: c.verdict.trustedBy } : {}),
          };
          if (c.verdict.tier === 'notify') notifyRole = c.verdict.role;
          break;
        case 'approved': {
          if (c.mismatch) {
            return {
              status: 'refused',
              code: 'action_hash_mismatch',
              message: `The arguments of call ${call.toolCallId} differ from the ones approved on request ${c.outcome.request.id}; nothing ran. Only the approved action runs.`,
            };
          }
          const req = c.outcome.request;
          key = idempotencyKey(req.id, req.actionHash);
          args = c.args;
          requestId = req.id;
          edited = c.outcome.edited;
          by = c.outcome.by;
          why = { tier: req.tier, ruleId: req.ruleId, authorizedBy: by, toolCallId: call.toolCallId };
          break;
        }
        case 'block':
          return { status: 'refused', code: c.code ?? 'blocked', message: c.message };
        case 'not_run':
          return { status: 'refused', code: c.outcome.state, message: c.message };
        default:
          // `ask` or `wait`: nobody has decided; the side effect never runs without a recorded decision.
          return {
            status: 'refused',
            code: 'not_authorized',
            message: `Call ${call.toolCallId} of ${call.tool} needs a reviewer's decision first; nothing ran.${c.kind === 'ask' ? " Pass the adapter's approval hook to the framework so the call pauses." : ''}`,
          };
      }
      const input = {
        key,
        tool: call.tool,
        args,
        threadId: call.threadId,
        requestId,
        auditType: requestId ? ('executed' as const) : ('auto_executed' as const),
        auditPayload: why,
        notifyRole,
      };
      let out = await il.executeOnce(input, (run) => fn(args, run));
      // Another process holds the claim: it finishes (and this one replays its outcome), or it died
      // and its lease runs out (and this one takes the claim over, same key). Wait for either; a
      // framework given "not run" here would carry on without the call's result.
      const until = il.now() + 3 * il.leaseMs;
      while (out.status === 'in_progress' && il.now() < until) {
        const wait = Math.min(Math.max((out.leaseUntil ?? il.now()) - il.now(), 0) + 25, il.leaseMs);
        await new Promise((r) => setTimeout(r, wait));
        out = await il.executeOnce(input, (run) => fn(args, run));
      }
      if (out.status === 'in_progress') {
        return {
          status: 'refused',
          code: 'in_progress',
          message: `Call ${call.toolCallId} is running in another process; its result is recorded when it finishes.`,
        };
      }
      if (out.status === 'failed') return { status: 'failed', error: out.error, replayed: out.replayed };
      return {
        status: 'succeeded',
        result: out.result,
        args,
        edited,
        ...(by === undefined ? {} : { by }),
        replayed: out.replayed,
      };
    },
  };
}

/** A refusal of a call as an error a framework reports as the tool's failure. */
export class CallRefusedError extends InterlockUsageError {
  constructor(call: AdapterCall, refusal: { code: string; message: string }) {
    super('not_authorized', refusal.message, {
      details: { threadId: call.threadId, toolCallId: call.toolCallId, tool: call.tool, reason: refusal.code },
    });
  }
}
