import { actionHash, isInterrupting } from '../../core/index.ts';
import {
  blockedText,
  notRunText,
  type CallOutcome,
  type Interlock,
  type ModelTexts,
  type PauseItem,
} from '../../engine/index.ts';
import type { AdapterCall, CallCheck, CallGateOptions } from './call-types.ts';

/** Where a framework's call stands for the adapter core: its request, followed to the one that stands, or the policy's verdict. */

/** What every operation of one call gate shares: the engine, the gate's options and the model-facing texts in force. */
export interface GateContext {
  il: Interlock;
  o: CallGateOptions;
  texts: ModelTexts;
}

/** Where the call stands: its request if one was opened for these arguments, else the policy's verdict. */
export async function checkCall(ctx: GateContext, call: AdapterCall): Promise<CallCheck> {
  // A call id may repeat (in a step, or a later turn): the request is the one opened for these arguments.
  const outcome = await ctx.il.callOutcome(call.threadId, call.toolCallId, actionHash(call.tool, call.args));
  return outcome ? fromOutcome(ctx.texts, call, outcome) : verdictFor(ctx, call);
}

/** The policy's verdict on a call that has no request. */
export async function verdictFor(
  ctx: GateContext,
  call: AdapterCall,
): Promise<Extract<CallCheck, { kind: 'run' | 'block' | 'ask' }>> {
  const verdict = await ctx.il.gate(
    { tool: call.tool, args: call.args },
    {
      threadId: call.threadId,
      proposer: ctx.o.proposer,
      app: (await ctx.o.app?.(call.threadId)) ?? {},
      ...(call.trustSince === undefined ? {} : { trustSince: call.trustSince }),
    },
  );
  if (verdict.tier === 'block') return { kind: 'block', verdict, message: blockedText(verdict.reason, ctx.texts) };
  if (isInterrupting(verdict.tier)) return { kind: 'ask', verdict };
  return { kind: 'run', verdict };
}

/** What a call's request, followed to the one that stands, means for the call. */
export function fromOutcome(
  texts: ModelTexts,
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

/** A pause item for a call whose check is `ask`, with the thread's application facts and the call's evidence. */
export async function pauseItem(
  o: CallGateOptions,
  call: AdapterCall,
  c: Extract<CallCheck, { kind: 'ask' }>,
): Promise<PauseItem> {
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
