import {
  actionHash,
  canonicalJson,
  sha256,
  InterlockUsageError,
  isInterrupting,
  newId,
  redact,
  type ApprovalRequest,
} from '../../core/index.ts';
import {
  auditEvent,
  blockedText,
  idempotencyKey,
  modelTexts,
  notRunText,
  type CallOutcome,
  type PauseItem,
} from '../../engine/index.ts';

import type { AdapterCall, CallCheck, CallGate, CallGateOptions, RunCalls, WaitingCall } from './call-types.ts';

export type {
  AdapterCall,
  CallCheck,
  CallGate,
  CallGateOptions,
  CallRun,
  RunCalls,
  WaitingCall,
} from './call-types.ts';

/**
 * A run's turn, for its automatic calls' keys: the messages saved before it and a digest of its input.
 * A retry of the same run (same history, same input) has the same turn; a run that saved nothing and
 * is followed by another message does not share keys with it.
 */
export function runTurn(savedMessages: number, input: unknown): string {
  return `${savedMessages}.${sha256(canonicalJson(input ?? null)).slice(0, 12)}`;
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

  async function pauseItem(call: AdapterCall, c: Extract<CallCheck, { kind: 'ask' }>): Promise<PauseItem> {
    const app = (await o.app?.(call.threadId)) ?? {};
    const evidence = await o.evidence?.(call);
    return {
      call: { tool: call.tool, args: call.args },
      toolCallId: call.toolCallId,
      verdict: c.verdict,
      app,
      ...(evidence ? { evidence } : {}),
    };
  }

  function forRun(threadId: string, waiting: readonly WaitingCall[] = [], turn?: string): RunCalls {
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
      message: texts.duplicateCallId(call.toolCallId),
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
    const calls: RunCalls = {
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
      async collectPause<E extends object>(stopped: ReadonlyArray<{ call: AdapterCall; extra?: E }>) {
        const items: PauseItem[] = [];
        const waiting: Array<WaitingCall & E> = [];
        const known: ApprovalRequest[] = [];
        for (const { call, extra } of stopped) {
          const c = checks.get(call.toolCallId) ?? (await calls.check(call));
          if (c.kind === 'ask') {
            const requestId = newId<string>('apr');
            items.push({ ...(await pauseItem(call, c)), requestId });
            waiting.push({ toolCallId: call.toolCallId, requestId, ...(extra ?? ({} as E)) });
          } else if (c.kind === 'wait') {
            known.push(c.outcome.request);
            waiting.push({ toolCallId: call.toolCallId, requestId: c.outcome.request.id, ...(extra ?? ({} as E)) });
          }
        }
        return { items, waiting, known };
      },
    };
    return calls;
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
    pauseItem,
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
