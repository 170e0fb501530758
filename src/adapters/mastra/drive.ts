import { actionHash, type ApprovalRequest } from '../../core/index.ts';
import type { PauseResult } from '../../engine/index.ts';
import {
  interruptsOf,
  lastText,
  watchWiring,
  type AdapterState,
  type CallCheck,
  type CallGate,
  type RunCalls,
  type ThreadRun,
  type WaitingCall,
} from '../core/index.ts';
import { stepCalls, suspendedCall, type MastraOutput, type SuspendedCall } from './output.ts';
import { readSnapshots, restoreSnapshots, type SavedSnapshot } from './snapshot.ts';
import { HOW, withToolRun, type ToolRun } from './tools.ts';
import type { AnyMastraAgent, MastraGenerateOptions, MastraRunResult } from './types.ts';

/** What a paused Mastra run keeps in Interlock's checkpoint: its run, the call it waits on, its snapshots. */
export interface MastraFramework {
  runId: string;
  suspended: SuspendedCall;
  snapshots: SavedSnapshot[];
  /** The run's turn, for its automatic calls' keys (see `runTurn`). */
  turn: string;
}

/** One adapter run of a thread: the Mastra agent, the gate, the held thread and this run's calls. */
export interface Drive {
  agent: AnyMastraAgent;
  name: string;
  gate: CallGate;
  options: MastraGenerateOptions;
  run: ThreadRun;
  threadId: string;
  calls: RunCalls;
  turn: string;
  /** Messages this run adds to the thread before Mastra's own (the user's input). */
  added: unknown[];
  /** Calls the saved run waited on. */
  waiting: readonly WaitingCall[];
}

/** What to tell Mastra about the call its run waits on. */
type Answer = { kind: 'approve' } | { kind: 'decline'; reason: string } | { kind: 'pause' };

/** What Interlock's record says about the call a Mastra run waits on. */
function answerOf(c: CallCheck, s: SuspendedCall): Answer {
  switch (c.kind) {
    case 'run':
      // The policy lets it run (the tool's own requireApproval asked): Interlock's verdict answers.
      return { kind: 'approve' };
    case 'approved':
      // Mastra's copy holds other arguments than the ones approved: decline, nothing runs.
      return c.mismatch
        ? {
            kind: 'decline',
            reason: `The arguments of call ${s.toolCallId} differ from the ones approved on request ${c.outcome.request.id}; nothing ran.`,
          }
        : { kind: 'approve' };
    case 'not_run':
      // An answer stands in for the result: the tool is approved in Mastra and its wrapper returns the answer.
      return c.answered ? { kind: 'approve' } : { kind: 'decline', reason: c.message };
    case 'block':
      return { kind: 'decline', reason: c.message };
    default:
      return { kind: 'pause' };
  }
}

/**
 * Drive Mastra from `first` (a generate, or nothing for a resume that starts at the saved suspension)
 * until its run finishes or waits on a call nobody decided: each suspension is answered from
 * Interlock's record with `approveToolCallGenerate` / `declineToolCallGenerate`.
 */
export async function drive(
  d: Drive,
  first: ((tr: ToolRun) => Promise<MastraOutput>) | MastraFramework,
): Promise<MastraRunResult> {
  const tr = toolRun(d);
  let out = typeof first === 'function' ? await callMastra(d, tr, first) : undefined;
  let saved = typeof first === 'function' ? undefined : first;
  // Checks this loop made, with the action they were made for: a call id the model used again in a
  // later step is checked again, never answered with an earlier call's verdict.
  const checked = new Map<string, { hash: string; c: CallCheck }>();
  for (;;) {
    if (out && out.finishReason !== 'suspended') return finish(d, out);
    const runId = out?.runId ?? saved!.runId;
    const s = out ? suspendedCall(out) : saved!.suspended;
    const call = { threadId: d.threadId, ...s };
    if (out)
      for (const x of stepCalls(d.threadId, out))
        if (!tr.handled.has(x.toolCallId))
          checked.set(x.toolCallId, { hash: actionHash(x.tool, x.args), c: await d.calls.check(x, tr.step()) });
    const k = checked.get(s.toolCallId);
    const c = k && k.hash === actionHash(s.tool, s.args) ? k.c : await d.calls.check(call, tr.step());
    if (c.kind === 'block') await d.gate.recordBlock(call, c);
    const answer = answerOf(c, s);
    if (answer.kind === 'pause') return out ? pause(d, tr, out, s) : stillWaiting(d);
    // Mastra resumes from its storage: Interlock's copy goes there first (the source of truth).
    if (saved) await restoreSnapshots(d.agent, runId, saved.snapshots);
    saved = undefined;
    tr.handled.add(s.toolCallId);
    if (answer.kind === 'approve') tr.approving.set(s.toolCallId, c);
    const opts = { ...d.options, runId, toolCallId: s.toolCallId };
    out = await callMastra(d, tr, () =>
      answer.kind === 'approve'
        ? d.agent.approveToolCallGenerate(withHooks(d, tr, opts))
        : d.agent.declineToolCallGenerate(withHooks(d, tr, { ...opts, reason: answer.reason })),
    );
  }
}

/** The tools' view of this run: a new step object after each step Mastra finishes. */
function toolRun(d: Drive): ToolRun {
  let step = {};
  return {
    agentId: d.agent.id,
    threadId: d.threadId,
    gate: d.gate,
    calls: d.calls,
    step: () => step,
    handled: new Set(),
    approving: new Map(),
    nextStep: () => {
      step = {};
    },
  };
}

/** Mastra's options for one call of this run: Interlock's policy as its approval predicate, and a step boundary hook. */
export function withHooks<T extends Record<string, unknown>>(d: Drive, tr: ToolRun, opts: T): T {
  const own = opts.onStepFinish as ((s: unknown) => unknown) | undefined;
  return {
    ...opts,
    requireToolApproval: async ({ toolName, args }: { toolName: string; args: Record<string, unknown> }) => {
      const c = await d.gate.verdict({ threadId: d.threadId, toolCallId: '', tool: toolName, args });
      return c.kind === 'ask';
    },
    onStepFinish: async (s: unknown) => {
      tr.nextStep();
      return own?.(s);
    },
  };
}

/** One Mastra call with the run's tools answering to it; a tool that ran around Interlock fails the run. */
function callMastra(d: Drive, tr: ToolRun, fn: (tr: ToolRun) => Promise<MastraOutput>): Promise<MastraOutput> {
  return watchWiring('Mastra adapter', HOW, () => withToolRun(tr, () => fn(tr)));
}

/** The run finished: its messages saved, the thread completed. */
async function finish(d: Drive, out: MastraOutput): Promise<MastraRunResult> {
  if (out.finishReason === 'error' || out.error)
    throw out.error instanceof Error ? out.error : new Error(String(out.error));
  const messages = [...d.added, ...(out.response?.messages ?? [])];
  await d.run.finish(messages, { adapter: 'mastra', waiting: [] }, 'completed');
  return {
    threadId: d.threadId,
    stopReason: 'end_turn',
    text: out.text ?? lastText(messages),
    interrupts: [],
    messages,
  };
}

/**
 * The run waits on a call nobody decided: Mastra's snapshots go into Interlock's checkpoint, with a
 * request for every call of the step that needs a person (each asked once, together).
 */
async function pause(d: Drive, tr: ToolRun, out: MastraOutput, s: SuspendedCall): Promise<MastraRunResult> {
  const step = stepCalls(d.threadId, out).filter((c) => !tr.handled.has(c.toolCallId));
  const stopped = (
    step.some((c) => c.toolCallId === s.toolCallId) ? step : [{ threadId: d.threadId, ...s }, ...step]
  ).map((call) => ({ call }));
  const { items, waiting } = await d.calls.collectPause(stopped);
  const kept = d.waiting.filter(
    (w) => !tr.handled.has(w.toolCallId) && !waiting.some((x) => x.toolCallId === w.toolCallId),
  );
  const framework: MastraFramework = {
    runId: out.runId!,
    suspended: s,
    snapshots: await readSnapshots(d.agent, out.runId!),
    turn: d.turn,
  };
  const state: AdapterState = { adapter: 'mastra', waiting: [...kept, ...waiting], framework };
  let opened: PauseResult | undefined;
  if (items.length > 0) opened = await d.run.pause(d.added, state, items, `agent:${d.name}`);
  else await d.run.finish(d.added, state, 'interrupted');
  const pending = await pendingOf(d.gate, state.waiting);
  const fresh = (opened?.requests ?? []).filter((r) => !pending.some((p) => p.id === r.id));
  return {
    threadId: d.threadId,
    stopReason: 'interrupt',
    text: '',
    interrupts: interruptsOf([...pending, ...fresh]),
    messages: d.added,
  };
}

/** The saved run still waits on its call: nothing is saved, the lease goes back. */
async function stillWaiting(d: Drive): Promise<MastraRunResult> {
  await d.run.release();
  const pending = await pendingOf(d.gate, d.waiting);
  return { threadId: d.threadId, stopReason: 'interrupt', text: '', interrupts: interruptsOf(pending), messages: [] };
}

/** The requests still pending among the calls a run waits on (each followed to the one that stands). */
async function pendingOf(gate: CallGate, waiting: readonly WaitingCall[]): Promise<ApprovalRequest[]> {
  const out: ApprovalRequest[] = [];
  for (const w of waiting) {
    const c = await gate.decisionOf(w.requestId);
    if (c.kind === 'wait' && !out.some((r) => r.id === c.outcome.request.id)) out.push(c.outcome.request);
  }
  return out;
}
