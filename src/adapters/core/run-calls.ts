import { actionHash, blockedVerdict, newId, type ApprovalRequest } from '../../core/index.ts';
import type { ModelTexts, PauseItem } from '../../engine/index.ts';
import { fromOutcome, pauseItem, verdictFor, type GateContext } from './call-checks.ts';
import type { AdapterCall, CallCheck, RunCalls, WaitingCall } from './call-types.ts';

/**
 * The calls of one framework run of a thread (see {@link RunCalls}): a call the saved run paused is
 * found by its request, any other is gated; a call id proposed twice in one step is refused.
 */
export function createRunCalls(
  ctx: GateContext,
  threadId: string,
  waiting: readonly WaitingCall[] = [],
  turn?: string,
): RunCalls {
  const paused = new Map(waiting.map((w) => [w.toolCallId, w]));
  const keyed = turnKeys(threadId, turn);
  const checks = new Map<string, CallCheck>();
  const steps = new WeakMap<object, Set<string>>();
  const collided = new Set<string>();
  const calls: RunCalls = {
    async check(call, step) {
      if (step) {
        const seen = steps.get(step) ?? new Set<string>();
        steps.set(step, seen);
        if (seen.has(call.toolCallId)) collided.add(call.toolCallId);
        seen.add(call.toolCallId);
      }
      if (collided.has(call.toolCallId)) {
        const c = duplicate(ctx.texts, call);
        checks.set(call.toolCallId, c);
        return c;
      }
      const w = paused.get(call.toolCallId);
      const c = w
        ? fromOutcome(ctx.texts, call, await ctx.il.requestOutcome(w.requestId))
        : keyed(call, await verdictFor(ctx, call));
      checks.set(call.toolCallId, c);
      return c;
    },
    known: (id) => checks.get(id),
    waitingFor: (id) => paused.get(id),
    collectPause: (stopped) => collectPause(ctx, stopped, (call) => checks.get(call.toolCallId) ?? calls.check(call)),
  };
  return calls;
}

/**
 * With a turn, a call that runs without a person is keyed by the turn, its action and how many times
 * this run made that action before it (not by the provider's call id); without one, checks stay as they are.
 */
function turnKeys(threadId: string, turn: string | undefined): (call: AdapterCall, c: CallCheck) => CallCheck {
  const made = new Map<string, number>();
  return (call, c) => {
    if (c.kind !== 'run' || turn === undefined) return c;
    const hash = actionHash(call.tool, call.args);
    const n = made.get(hash) ?? 0;
    made.set(hash, n + 1);
    return { ...c, key: `${threadId}:${turn}:${hash}:${n}` };
  };
}

/** The refusal of a call whose id the step proposed twice. */
function duplicate(texts: ModelTexts, call: AdapterCall): Extract<CallCheck, { kind: 'block' }> {
  return {
    kind: 'block',
    code: 'duplicate_call_id',
    message: texts.duplicateCallId(call.toolCallId),
    verdict: blockedVerdict('interlock:duplicate_call_id', 'duplicate_call_id'),
  };
}

/** What the framework stopped on, as a pause: a new request for each call that asks, the pending one kept for each that waits. */
async function collectPause<E extends object>(
  ctx: GateContext,
  stopped: ReadonlyArray<{ call: AdapterCall; extra?: E }>,
  checkOf: (call: AdapterCall) => CallCheck | Promise<CallCheck>,
): Promise<{ items: PauseItem[]; waiting: Array<WaitingCall & E>; known: ApprovalRequest[] }> {
  const items: PauseItem[] = [];
  const waiting: Array<WaitingCall & E> = [];
  const known: ApprovalRequest[] = [];
  for (const { call, extra } of stopped) {
    const c = await checkOf(call);
    if (c.kind === 'ask') {
      const requestId = newId<string>('apr');
      items.push({ ...(await pauseItem(ctx.o, call, c)), requestId });
      waiting.push({ toolCallId: call.toolCallId, requestId, ...(extra ?? ({} as E)) });
    } else if (c.kind === 'wait') {
      known.push(c.outcome.request);
      waiting.push({ toolCallId: call.toolCallId, requestId: c.outcome.request.id, ...(extra ?? ({} as E)) });
    }
  }
  return { items, waiting, known };
}
