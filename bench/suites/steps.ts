/**
 * Suite 2: steps that do not pause. A turn on a fresh thread: the model
 * proposes one refund that the policy lets run alone (tier `auto`), the tool
 * runs, the model answers: two model steps and one auto-approved tool call.
 * The scripted model and the tool cost microseconds, so the time is the
 * loop's, the gate's and (for Interlock) the execute-once ledger's.
 */
import type { Store } from '../../src/index.ts';
import { interlockRig, prose } from '../lib/workload.ts';
import { since, summarize, type Summary } from '../lib/stats.ts';
import type { LangGraphPeer } from '../peers/langgraph.ts';

export const STEPS_PER_TURN = 2;

export interface StepRun {
  label: string;
  /** What persists: `none`, or the store and its durability. */
  persistence: string;
  turns: number;
  turnMs: Summary;
  /** Mean time per model step (turn / 2). */
  perStepMs: number;
  perTurn: { transactions: number; statements: number } | null;
}

async function timeTurns(
  seconds: number,
  minTurns: number,
  warmup: number,
  turn: (i: number) => Promise<void>,
): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await turn(-1 - i);
  const samples: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  for (let i = 0; performance.now() < deadline || i < minTurns; i++) {
    const t0 = performance.now();
    await turn(i);
    samples.push(since(t0));
  }
  return samples;
}

function result(label: string, persistence: string, samples: number[], perTurn: StepRun['perTurn']): StepRun {
  const s = summarize(samples);
  return { label, persistence, turns: samples.length, turnMs: s, perStepMs: s.mean / STEPS_PER_TURN, perTurn };
}

export async function interlockSteps(
  store: Store,
  label: string,
  persistence: string,
  o: { seconds: number; minTurns: number; warmup: number },
): Promise<StepRun> {
  const rig = interlockRig(store, 'auto');
  let n = 0;
  const before = { ...store.stats };
  let counted = 0;
  const samples = await timeTurns(o.seconds, o.minTurns, o.warmup, async (i) => {
    const r = await rig.agent.invoke(prose('user-1'), { threadId: `auto-${++n}` });
    if (r.stopReason !== 'end_turn') throw new Error(`expected end_turn, got ${r.stopReason}`);
    if (i >= 0) counted++;
  });
  const after = store.stats;
  const turns = counted + o.warmup;
  const perTurn = {
    transactions: Math.round(((after.transactions - before.transactions) / turns) * 100) / 100,
    statements: Math.round(((after.statements - before.statements) / turns) * 100) / 100,
  };
  await store.close();
  return result(label, persistence, samples, perTurn);
}

export async function langGraphSteps(
  lg: LangGraphPeer,
  checkpointer: 'none' | 'memory',
  o: { seconds: number; minTurns: number; warmup: number },
): Promise<StepRun> {
  const rig = lg.graph('auto', checkpointer === 'none' ? undefined : lg.memorySaver());
  let n = 0;
  const samples = await timeTurns(o.seconds, o.minTurns, o.warmup, async () => {
    const r = await rig.turn(`auto-${++n}`, 1);
    if (r.messages.length !== 4) throw new Error(`expected 4 messages, got ${r.messages.length}`);
  });
  return result(
    checkpointer === 'none' ? 'LangGraph.js · no checkpointer' : 'LangGraph.js · MemorySaver',
    checkpointer === 'none' ? 'none' : 'in memory',
    samples,
    null,
  );
}
