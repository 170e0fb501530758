/**
 * Suite 1: pause → decide → resume cycles, sequentially and with 16 threads in
 * flight. Every participant runs the same driver: each in-flight worker takes
 * the next cycle, runs one turn up to its pause, then approves and resumes it.
 * Threads run TURNS_PER_THREAD turns, then the worker moves to a new thread.
 */
import { inFlight, since, summarize, type Summary } from '../lib/stats.ts';
import type { Participant } from '../lib/participants.ts';

export const TURNS_PER_THREAD = 5;

export interface CycleRun {
  label: string;
  system: Participant['system'];
  backend: Participant['backend'];
  durability: string;
  concurrency: number;
  cycles: number;
  seconds: number;
  cyclesPerSec: number;
  pauseMs: Summary;
  resumeMs: Summary;
  /** Per cycle, from the participant's counters (sequential runs only: concurrent ones interleave). */
  perCycle: { pause: Counts; resume: Counts } | null;
}

export interface Counts {
  transactions: number;
  statements: number;
  /** Times the process waited for the server (PostgreSQL; absent where not counted). */
  roundTrips?: number;
}

/** Raw samples of one measurement; several (rounds) merge into a {@link CycleRun}. */
export interface CycleSamples {
  pauses: number[];
  resumes: number[];
  ms: number;
  counts: { pause: Counts; resume: Counts };
}

const threadOf = (run: string, concurrency: number, worker: number, k: number) =>
  `${run}-c${concurrency}-w${worker}-${Math.floor(k / TURNS_PER_THREAD)}`;

/** Warm-up: JIT, statement caches, connection pools. */
export async function warmUp(
  p: Participant,
  opts: { concurrency: number; cycles: number; run: string },
): Promise<void> {
  const count = new Array<number>(opts.concurrency).fill(0);
  await inFlight(opts.concurrency, opts.cycles, async (_i, w) => {
    const k = count[w]!++;
    const t = threadOf(`${opts.run}-warm`, opts.concurrency, w, k);
    const token = await p.pause(t, (k % TURNS_PER_THREAD) + 1);
    await p.resume(t, token);
  });
}

/** Run cycles with `concurrency` in flight for at least `seconds` and `minCycles`. */
export async function measureCycles(
  p: Participant,
  opts: { concurrency: number; seconds: number; minCycles: number; run: string },
): Promise<CycleSamples> {
  const pauses: number[] = [];
  const resumes: number[] = [];
  const counts = {
    pause: { transactions: 0, statements: 0, roundTrips: 0 },
    resume: { transactions: 0, statements: 0, roundTrips: 0 },
  };
  const perWorker = new Array<number>(opts.concurrency).fill(0);
  const deadline = performance.now() + opts.seconds * 1000;
  let started = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: opts.concurrency }, async (_, w) => {
      while (performance.now() < deadline || started < opts.minCycles) {
        started++;
        const k = perWorker[w]!++;
        const t = threadOf(opts.run, opts.concurrency, w, k);
        const c0 = p.counters?.();
        const a = performance.now();
        const token = await p.pause(t, (k % TURNS_PER_THREAD) + 1);
        const b = performance.now();
        const c1 = p.counters?.();
        await p.resume(t, token);
        const c = performance.now();
        const c2 = p.counters?.();
        pauses.push(b - a);
        resumes.push(c - b);
        if (c0 && c1 && c2) {
          counts.pause.transactions += c1.transactions - c0.transactions;
          counts.pause.statements += c1.statements - c0.statements;
          counts.resume.transactions += c2.transactions - c1.transactions;
          counts.resume.statements += c2.statements - c1.statements;
          counts.pause.roundTrips += (c1.roundTrips ?? 0) - (c0.roundTrips ?? 0);
          counts.resume.roundTrips += (c2.roundTrips ?? 0) - (c1.roundTrips ?? 0);
        }
      }
    }),
  );
  return { pauses, resumes, ms: since(t0), counts };
}

/** Merge the rounds of one participant at one concurrency. */
export function toRun(p: Participant, concurrency: number, rounds: CycleSamples[]): CycleRun {
  const pauses = rounds.flatMap((r) => r.pauses);
  const resumes = rounds.flatMap((r) => r.resumes);
  const ms = rounds.reduce((s, r) => s + r.ms, 0);
  const sum = (f: (r: CycleSamples) => number) => rounds.reduce((s, r) => s + f(r), 0);
  const cycles = pauses.length;
  const per = (n: number) => Math.round((n / cycles) * 100) / 100;
  return {
    label: p.label,
    system: p.system,
    backend: p.backend,
    durability: p.durability,
    concurrency,
    cycles,
    seconds: ms / 1000,
    cyclesPerSec: cycles / (ms / 1000),
    pauseMs: summarize(pauses),
    resumeMs: summarize(resumes),
    // Concurrent cycles interleave their statements, so only sequential runs are attributed.
    perCycle:
      concurrency === 1 && p.counters
        ? {
            pause: {
              transactions: per(sum((r) => r.counts.pause.transactions)),
              statements: per(sum((r) => r.counts.pause.statements)),
              roundTrips: per(sum((r) => r.counts.pause.roundTrips ?? 0)),
            },
            resume: {
              transactions: per(sum((r) => r.counts.resume.transactions)),
              statements: per(sum((r) => r.counts.resume.statements)),
              roundTrips: per(sum((r) => r.counts.resume.roundTrips ?? 0)),
            },
          }
        : null,
  };
}
