/**
 * Suite 3: storage growth. Threads run 50 turns (one pause and resume each);
 * after turns 1, 10, 25 and 50 we read how many bytes the thread's persisted
 * state takes and divide by the size of its final state as JSON. The time of
 * each cycle is kept too, to show how cost grows with conversation length.
 */
import type { Participant } from '../lib/participants.ts';
import { summarize } from '../lib/stats.ts';

export const CHECKPOINTS = [1, 10, 25, 50] as const;

export interface StoragePoint {
  turn: number;
  stateBytes: number;
  storedBytes: number;
  multiple: number;
  /** Interlock: with the thread's requests, audit events, ledger rows and jobs. */
  allBytes: number | null;
  allMultiple: number | null;
  /** Median pause + resume time over the last five turns up to this one (ms). */
  cycleMs: number;
}

export interface StorageRun {
  label: string;
  points: StoragePoint[];
}

export async function runStorage(p: Participant, opts: { threads: number; run: string }): Promise<StorageRun> {
  const last = CHECKPOINTS[CHECKPOINTS.length - 1]!;
  const threads = Array.from({ length: opts.threads }, (_, i) => `${opts.run}-storage-${i}`);
  // Warm-up (JIT, statement caches, pools) on a thread of its own, so turn 1 is not a cold start.
  for (let turn = 1; turn <= 10; turn++) await p.resume(`${opts.run}-warm`, await p.pause(`${opts.run}-warm`, turn));
  const times: number[][] = [];
  const points: StoragePoint[] = [];
  for (let turn = 1; turn <= last; turn++) {
    const t: number[] = [];
    for (const id of threads) {
      const a = performance.now();
      const token = await p.pause(id, turn);
      await p.resume(id, token);
      t.push(performance.now() - a);
    }
    times.push(t);
    if ((CHECKPOINTS as readonly number[]).includes(turn)) {
      const id = threads[0]!;
      const stateBytes = await p.finalStateBytes!(id);
      const storedBytes = await p.storageBytes!(id);
      const allBytes = p.allBytes ? await p.allBytes(id) : null;
      // Median over the last five turns (of every thread).
      const window = times.slice(Math.max(0, turn - 5), turn).flat();
      points.push({
        turn,
        stateBytes,
        storedBytes,
        multiple: storedBytes / stateBytes,
        allBytes,
        allMultiple: allBytes === null ? null : allBytes / stateBytes,
        cycleMs: summarize(window).p50,
      });
    }
  }
  return { label: p.label, points };
}
