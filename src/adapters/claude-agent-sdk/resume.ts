import { actionHash } from '../../core/index.ts';
import { interruptsOf, runTurn as turnOf, type ThreadRun } from '../core/index.ts';
import { holdFor, type HeldCall } from './hold.ts';
import { resumePrompt } from './messages.ts';
import type { ClaudeContext, ClaudeWaiting } from './context.ts';
import { runAndSave } from './runs.ts';
import { createScope } from './scope.ts';
import type { ClaudeRunResult, DecidedCall } from './types.ts';

/**
 * Continue a thread's session after decisions: while every call still waits, nothing runs; otherwise
 * the session goes on (`resume: sessionId`) with a message saying what was decided, and the calls the
 * model makes again are found by their action — an approved one runs once (with a reviewer's edit),
 * a rejected or answered one gets the reviewer's words; the ones still pending keep waiting.
 */
export async function resumeRun(ctx: ClaudeContext, run: ThreadRun, threadId: string): Promise<ClaudeRunResult> {
  const waiting = (run.state?.waiting ?? []) as ClaudeWaiting[];
  if (waiting.length === 0) {
    await run.release();
    return { threadId, stopReason: 'end_turn', text: '', interrupts: [] };
  }
  const decisions = await Promise.all(waiting.map((w) => ctx.gate.decisionOf(w.requestId)));
  const pending = decisions.flatMap((d) => (d.kind === 'wait' ? [d.outcome.request] : []));
  if (pending.length === decisions.length) {
    await run.release();
    return { threadId, stopReason: 'interrupt', text: '', interrupts: interruptsOf(pending) };
  }
  // What was asked comes from Interlock's own request rows, never from the session's transcript.
  const asked = await Promise.all(waiting.map((w) => ctx.o.interlock.getRequestOrThrow(w.requestId)));
  const paused = new Map<string, string[]>();
  const decided: DecidedCall[] = waiting.map((w, i) => {
    const req = asked[i]!;
    const d = decisions[i]!;
    // The call as the model proposed it (an edit keeps it as originalArgs): that is the call to make again.
    const args = (req.resolution?.type === 'edit' ? req.resolution.originalArgs : undefined) ?? req.args;
    const hash = actionHash(req.tool, args);
    paused.set(hash, [...(paused.get(hash) ?? []), w.toolCallId]);
    const state = d.kind === 'approved' ? 'approved' : d.kind === 'wait' ? 'pending' : 'not_run';
    return { tool: w.tool, args, state, ...(d.kind === 'not_run' ? { message: d.message } : {}) };
  });
  const calls = ctx.gate.forRun(threadId, waiting, turnOf(run.messages.length, waiting));
  const held: HeldCall[] = [];
  const scope = createScope(threadId, calls, paused, holdFor(ctx, run, held));
  const prompt = (ctx.o.resumePrompt ?? resumePrompt)(decided);
  return runAndSave(ctx, run, threadId, prompt, scope, held, () => {
    const still = waiting.flatMap((w, i) => {
      const d = decisions[i]!;
      return d.kind === 'wait' && !scope.reproposed.has(w.toolCallId) ? [{ w, req: d.outcome.request }] : [];
    });
    return { waiting: still.map((s) => s.w), requests: still.map((s) => s.req) };
  });
}
