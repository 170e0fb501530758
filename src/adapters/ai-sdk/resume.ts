import type { ModelMessage, ToolSet } from 'ai';
import type { ApprovalRequest } from '../../core/index.ts';
import type { AdapterState, CallCheck, CallGate, ThreadRun } from '../core/index.ts';
import { runResult, type AiSdkContext } from './context.ts';
import { generateTurn } from './generate.ts';
import { runEarly } from './tools.ts';
import type { AiSdkRunResult } from './types.ts';

type Waiting = AdapterState['waiting'][number];
type Early = { w: Waiting; c: Extract<CallCheck, { kind: 'approved' }> };

/**
 * Continue a paused thread: the decided calls' approval responses (and results) go to the SDK, which
 * continues the step once every call of it is settled; until then an approved call runs on its own.
 */
export async function resumeThread<TOOLS extends ToolSet>(
  ctx: AiSdkContext<TOOLS>,
  run: ThreadRun,
  threadId: string,
): Promise<AiSdkRunResult> {
  const waiting = run.state?.waiting ?? [];
  if (waiting.length === 0) {
    await run.release();
    return runResult(threadId, 'end_turn', [], []);
  }
  const settled = new Map((run.state?.settled ?? []).map((x) => [x.toolCallId, x.part]));
  const { pending, parts, early } = await readDecisions(ctx.gate, waiting, settled);
  if (pending.length > 0) {
    // The model goes on only when every call of its step is settled (the SDK needs all results),
    // but an approved call does not wait for its siblings: it runs now, and its result is kept
    // for the step's resume.
    if (early.length === 0) {
      await run.release();
      return runResult(threadId, 'interrupt', [], pending);
    }
    for (const { w, c } of early) {
      const part = await runEarly(ctx, run, threadId, w.toolCallId, c);
      if (part) settled.set(w.toolCallId, part);
    }
    const state: AdapterState = {
      adapter: 'ai-sdk',
      waiting,
      settled: [...settled].map(([toolCallId, part]) => ({ toolCallId, part })),
    };
    await run.finish([], state, 'interrupted');
    return runResult(threadId, 'interrupt', [], pending);
  }
  return generateTurn(ctx, run, threadId, [{ role: 'tool', content: parts } as ModelMessage]);
}

/**
 * Where each waiting call's decision stands: the requests still pending, the SDK's parts for the
 * decided calls, and the approved calls that have no result yet (to run early while others wait).
 */
async function readDecisions(
  gate: CallGate,
  waiting: Waiting[],
  settled: Map<string, unknown>,
): Promise<{ pending: ApprovalRequest[]; parts: unknown[]; early: Early[] }> {
  const pending: ApprovalRequest[] = [];
  const parts: unknown[] = [];
  const early: Early[] = [];
  for (const w of waiting) {
    const c = await gate.decisionOf(w.requestId);
    if (c.kind === 'wait') pending.push(c.outcome.request);
    else if (c.kind === 'approved') {
      parts.push({ type: 'tool-approval-response', approvalId: w.approvalId, approved: true });
      // A call run early (while a sibling still waited) has its result: the SDK keeps it and does not run the call again.
      const done = settled.get(w.toolCallId);
      if (done) parts.push(done);
      else early.push({ w, c });
    } else if (c.kind === 'not_run') {
      parts.push({
        type: 'tool-approval-response',
        approvalId: w.approvalId,
        approved: false,
        reason: c.message,
      });
      // An answer stands in for the tool's result; the SDK keeps an existing result and does not deny over it.
      if (c.answered)
        parts.push({
          type: 'tool-result',
          toolCallId: w.toolCallId,
          toolName: c.outcome.request.tool,
          output: { type: 'text', value: c.message },
        });
    }
  }
  return { pending, parts, early };
}
