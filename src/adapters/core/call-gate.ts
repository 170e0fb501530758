import {
  actionHash,
  canonicalJson,
  sha256,
  InterlockUsageError,
  redact,
  type ApprovalRequest,
} from '../../core/index.ts';
import {
  auditEvent,
  idempotencyKey,
  modelTexts,
  type ExecutionInput,
  type ExecutionOutcome,
  type Interlock,
} from '../../engine/index.ts';

import { checkCall, fromOutcome, pauseItem, verdictFor, type GateContext } from './call-checks.ts';
import type { AdapterCall, CallCheck, CallGate, CallGateOptions, CallRun } from './call-types.ts';
import { createRunCalls } from './run-calls.ts';

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
  const ctx: GateContext = { il: o.interlock, o, texts: modelTexts(o.texts) };
  // Calls whose refusal is audited already (thread, call id, action): recorded once per gate.
  const blocked = new Set<string>();
  return {
    texts: ctx.texts,
    check: (call) => checkCall(ctx, call),
    forRun: (threadId, waiting, turn) => createRunCalls(ctx, threadId, waiting, turn),
    async decisionOf(requestId) {
      return fromOutcome(ctx.texts, undefined, await ctx.il.requestOutcome(requestId));
    },
    verdict: (call) => verdictFor(ctx, call),
    async decision(threadId, toolCallId) {
      const outcome = await ctx.il.callOutcome(threadId, toolCallId);
      return outcome ? fromOutcome(ctx.texts, undefined, outcome) : undefined;
    },
    pauseItem: (call, c) => pauseItem(o, call, c),
    recordBlock: (call, c) => recordBlock(ctx.il, blocked, call, c),
    run: (call, fn, known) => runOnce(ctx, call, fn, known),
  };
}

/** A policy refusal in the audit log, once per call (thread, call id and action) of this gate. */
async function recordBlock(
  il: Interlock,
  blocked: Set<string>,
  call: AdapterCall,
  c: Extract<CallCheck, { kind: 'block' }>,
): Promise<void> {
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
}

/** A call some recorded reason lets run: its key, the arguments that run, and what its audit says. */
interface Grant {
  input: ExecutionInput;
  edited: boolean;
  by: string | undefined;
}

/**
 * Claim → run → outcome for a call with a recorded reason to run: an auto/notify verdict, or an
 * authorized request (with the authorized arguments). Anything else is refused; nothing runs.
 */
async function runOnce<T>(
  ctx: GateContext,
  call: AdapterCall,
  fn: (args: Record<string, unknown>, run: { idempotencyKey: string; attempt: number }) => Promise<T>,
  known?: CallCheck,
): Promise<CallRun<T>> {
  const c = known ?? (await checkCall(ctx, call));
  const grant = grantOf(call, c);
  if ('status' in grant) return grant;
  const { input, edited, by } = grant;
  const args = input.args;
  // An approved call's request as the engine read it: its claim is written from it, without reading again.
  const request = c.kind === 'approved' ? c.outcome.request : undefined;
  const out = await executeWaiting(ctx.il, input, (run) => fn(args, run), {
    fresh: c.kind === 'run' && c.fresh === true,
    request,
  });
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
}

/** The ledger entry a checked call runs under, or why it must not run. */
function grantOf(call: AdapterCall, c: CallCheck): Grant | Extract<CallRun<never>, { status: 'refused' }> {
  switch (c.kind) {
    case 'run':
      return {
        input: executionInput(
          call,
          c.key ?? `${call.threadId}:${call.toolCallId}`,
          call.args,
          null,
          {
            tier: c.verdict.tier,
            ruleId: c.verdict.ruleId,
            reason: c.verdict.reason,
            toolCallId: call.toolCallId,
            ...(c.verdict.trustedBy ? { trustedBy: c.verdict.trustedBy } : {}),
          },
          c.verdict.tier === 'notify' ? c.verdict.role : null,
        ),
        edited: false,
        by: undefined,
      };
    case 'approved': {
      if (c.mismatch) {
        return {
          status: 'refused',
          code: 'action_hash_mismatch',
          message: `The arguments of call ${call.toolCallId} differ from the ones approved on request ${c.outcome.request.id}; nothing ran. Only the approved action runs.`,
        };
      }
      const req = c.outcome.request;
      const by = c.outcome.by;
      const why = { tier: req.tier, ruleId: req.ruleId, authorizedBy: by, toolCallId: call.toolCallId };
      return {
        input: executionInput(call, idempotencyKey(req.id, req.actionHash), c.args, req.id, why, null),
        edited: c.outcome.edited,
        by,
      };
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
}

/** The ledger's input for a call: audited as executed under a request, or as run automatically. */
function executionInput(
  call: AdapterCall,
  key: string,
  args: Record<string, unknown>,
  requestId: string | null,
  why: Record<string, unknown>,
  notifyRole: string | null,
): ExecutionInput {
  return {
    key,
    tool: call.tool,
    args,
    threadId: call.threadId,
    requestId,
    auditType: requestId ? 'executed' : 'auto_executed',
    auditPayload: why,
    notifyRole,
  };
}

/**
 * Run once under the ledger. Another process holds the claim: it finishes (and this one replays its
 * outcome), or it died and its lease runs out (and this one takes the claim over, same key). Wait for
 * either; a framework given "not run" here would carry on without the call's result.
 */
async function executeWaiting<T>(
  il: Interlock,
  input: ExecutionInput,
  fn: (run: { idempotencyKey: string; attempt: number }) => Promise<T>,
  o: { fresh: boolean; request: ApprovalRequest | undefined },
): Promise<ExecutionOutcome<T>> {
  // A fresh key is nobody else's: nothing to wait for, and no claim to commit before it runs.
  if (o.fresh) return il.executeOnce(input, fn, { unclaimed: true });
  let out = await il.executeOnce(input, fn, o.request ? { request: o.request } : {});
  const until = il.now() + 3 * il.leaseMs;
  while (out.status === 'in_progress' && il.now() < until) {
    const wait = Math.min(Math.max((out.leaseUntil ?? il.now()) - il.now(), 0) + 25, il.leaseMs);
    await new Promise((r) => setTimeout(r, wait));
    out = await il.executeOnce(input, fn);
  }
  return out;
}

/** A refusal of a call as an error a framework reports as the tool's failure. */
export class CallRefusedError extends InterlockUsageError {
  constructor(call: AdapterCall, refusal: { code: string; message: string }) {
    super('not_authorized', refusal.message, {
      details: { threadId: call.threadId, toolCallId: call.toolCallId, tool: call.tool, reason: refusal.code },
    });
  }
}
