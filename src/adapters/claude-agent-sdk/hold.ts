import { newId, type ApprovalRequest } from '../../core/index.ts';
import type { AdapterCall, CallCheck, ThreadRun } from '../core/index.ts';
import type { ClaudeContext, ClaudeWaiting } from './context.ts';

/** A call the hook held: its request, opened while the turn went on. */
export interface HeldCall {
  waiting: ClaudeWaiting;
  request: ApprovalRequest;
}

/** Holds a call that needs a person: its request opened now, its decision awaited up to `holdMs`. */
export type Hold = (
  call: AdapterCall,
  check: Extract<CallCheck, { kind: 'ask' }>,
  claudeName: string,
) => Promise<Extract<CallCheck, { kind: 'approved' | 'not_run' }> | undefined>;

/**
 * The hold of a turn (with `holdMs` > 0): the request opens at once (the thread keeps its lease), the
 * hook polls its decision, and a decision within the hold lets the turn go on — the approved call
 * runs, a rejected one gets the reviewer's words. Without one, the call is refused to the model for
 * now and stays waiting in `held`; the turn's save keeps it, and `resume` continues once it is decided.
 */
export function holdFor(ctx: ClaudeContext, run: ThreadRun, held: HeldCall[]): Hold | undefined {
  const holdMs = ctx.o.holdMs ?? 0;
  if (holdMs <= 0) return undefined;
  const il = ctx.o.interlock;
  return async (call, check, claudeName) => {
    const requestId = newId<string>('apr');
    const item = { ...(await ctx.gate.pauseItem(call, check)), requestId };
    const { requests } = await il.pause({ thread: run.ref, items: [item], proposer: `agent:${ctx.name}` });
    const entry: HeldCall = {
      waiting: { toolCallId: call.toolCallId, requestId, tool: claudeName },
      request: requests[0]!,
    };
    held.push(entry);
    const until = il.now() + holdMs;
    const every = Math.min(250, holdMs);
    for (;;) {
      const d = await ctx.gate.decisionOf(requestId);
      if (d.kind !== 'wait') {
        held.splice(held.indexOf(entry), 1);
        return d;
      }
      entry.request = d.outcome.request;
      if (il.now() >= until) return undefined;
      await new Promise((r) => setTimeout(r, every));
    }
  };
}
