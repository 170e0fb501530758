/**
 * Suite 7: a fleet of agents. `agents` threads in flight at once, each running
 * turns that do not pause (the refund runs alone, tier `auto`): the load of
 * many agents making auto-tier calls against one database. Every turn is on a
 * fresh thread and persists what the participant persists (Interlock: the
 * thread, checkpoints, messages and the execute-once ledger; LangGraph.js: its
 * checkpointer's checkpoints and writes).
 */
import type { Store } from '../../src/index.ts';
import { interlockRig, prose } from '../lib/workload.ts';
import { since, summarize, type Summary } from '../lib/stats.ts';
import type { LangGraphPeer } from '../peers/langgraph.ts';
import { STEPS_PER_TURN } from './steps.ts';

export interface FleetRun {
  label: string;
  backend: 'sqlite' | 'postgres';
  persistence: string;
  agents: number;
  turns: number;
  seconds: number;
  turnsPerSec: number;
  /** Model steps per second across the fleet (two per turn). */
  stepsPerSec: number;
  turnMs: Summary;
}

/** Run `turn` on fresh threads with `agents` in flight for `seconds` (after `warmup` turns per agent). */
export async function runFleet(
  meta: Pick<FleetRun, 'label' | 'backend' | 'persistence'>,
  o: { agents: number; seconds: number; warmup: number; run: string },
  turn: (threadId: string) => Promise<void>,
): Promise<FleetRun> {
  let n = 0;
  const next = () => `${o.run}-${++n}`;
  await Promise.all(
    Array.from({ length: o.agents }, async () => {
      for (let i = 0; i < o.warmup; i++) await turn(next());
    }),
  );
  const samples: number[] = [];
  const t0 = performance.now();
  const deadline = t0 + o.seconds * 1000;
  await Promise.all(
    Array.from({ length: o.agents }, async () => {
      while (performance.now() < deadline) {
        const a = performance.now();
        await turn(next());
        samples.push(since(a));
      }
    }),
  );
  const seconds = since(t0) / 1000;
  return {
    ...meta,
    agents: o.agents,
    turns: samples.length,
    seconds,
    turnsPerSec: samples.length / seconds,
    stepsPerSec: (samples.length * STEPS_PER_TURN) / seconds,
    turnMs: summarize(samples),
  };
}

/** Interlock's agent over `store`, every refund auto-approved. */
export function interlockFleetTurn(store: Store): (threadId: string) => Promise<void> {
  const rig = interlockRig(store, 'auto');
  return async (threadId) => {
    const r = await rig.agent.invoke(prose('user-1'), { threadId });
    if (r.stopReason !== 'end_turn') throw new Error(`expected end_turn, got ${r.stopReason}`);
  };
}

/** The same turn as a LangGraph.js graph over `saver`. */
export function langGraphFleetTurn(
  lg: LangGraphPeer,
  saver: Parameters<LangGraphPeer['graph']>[1],
): (threadId: string) => Promise<void> {
  const rig = lg.graph('auto', saver);
  return async (threadId) => {
    const r = await rig.turn(threadId, 1);
    if (r.messages.length !== 4) throw new Error(`expected 4 messages, got ${r.messages.length}`);
  };
}
