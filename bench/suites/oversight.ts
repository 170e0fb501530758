/**
 * Suite 9: the cost of oversight, per adapter. Each framework's agent with its own persistence and its
 * own approval beside the same agent with Interlock's adapter (bench/suites/oversight-*.ts), on SQLite
 * and PostgreSQL, for
 * - an auto-tier turn: the model proposes a $100 refund the policy lets run alone, the tool runs, the
 *   model answers (two model steps, one tool call, no pause);
 * - a gated cycle: the model proposes an $850 refund, the run pauses (persisted), a reviewer approves,
 *   the run resumes, the refund runs once and the model answers;
 * one at a time and 16 in flight. Threads run several turns each (a thread's history grows as in a
 * conversation). The two sides of a pair run in the same rounds, alternating which goes first, so a
 * burst of other work on the machine lands on both; the ratio is Interlock's time per operation over
 * the framework's.
 */
import { summarize, type Summary } from '../lib/stats.ts';
import { expect, type OversightAgent, type OversightPair } from '../lib/oversight-agent.ts';

export type OversightMode = 'auto' | 'gated';

/** One side of a pair for one mode and concurrency, over all its rounds. */
export interface OversightRun {
  framework: OversightPair['framework'];
  backend: OversightPair['backend'];
  durability: string;
  side: 'framework' | 'interlock';
  label: string;
  mode: OversightMode;
  concurrency: number;
  /** Auto turns or gated cycles measured. */
  ops: number;
  opsPerSec: number;
  /** Per auto turn or per gated cycle (pause + decision + resume). */
  latencyMs: Summary;
  /** Transactions per operation committed by what this side adds (null: not counted, LangGraph's checkpointers). */
  commitsPerOp: number | null;
  /** Of those, syncs of the disk per operation, where counted (Interlock on SQLite). */
  syncsPerOp?: number;
}

export interface OversightOptions {
  /** Seconds each side is measured for, per mode and concurrency, split over the rounds. */
  seconds: number;
  rounds: number;
  /** At least this many operations per side, per mode and concurrency, over all rounds. */
  minOps: number;
  /** Operations each side runs once per mode before any is measured (JIT, caches, pools). */
  warmup: number;
  /** Turns on a thread before the next one starts. */
  turnsPerThread: number;
  concurrencies: readonly number[];
  /** Called before each measurement: lets the disk finish what the previous one left. */
  settle: () => Promise<void>;
}

/** What the agent is asked: a refund the policy lets run alone, or one that waits for a person. */
const inputFor = (mode: OversightMode, order: string) => `refund ${order} ${mode === 'auto' ? 100 : 850}`;

/** `concurrency` loops of operations for at least `seconds` and `minOps`; the latency of each. */
async function measure(
  agent: OversightAgent,
  mode: OversightMode,
  o: { concurrency: number; seconds: number; minOps: number; turnsPerThread: number; run: string },
): Promise<{ samples: number[]; elapsedMs: number; commits: number | null; syncs?: number }> {
  const samples: number[] = [];
  const before = agent.runs();
  const committed = agent.commits?.();
  const synced = agent.syncs?.();
  const t0 = performance.now();
  const deadline = t0 + o.seconds * 1000;
  let started = 0;
  await Promise.all(
    Array.from({ length: o.concurrency }, async (_, w) => {
      for (let k = 0; performance.now() < deadline || started < o.minOps; k++) {
        started++;
        const threadId = `${o.run}-w${w}-t${Math.floor(k / o.turnsPerThread)}`;
        const t = performance.now();
        if (mode === 'auto') await agent.auto(threadId, inputFor(mode, `${threadId}-${k}`));
        else await agent.cycle(threadId, inputFor(mode, `${threadId}-${k}`));
        samples.push(performance.now() - t);
      }
    }),
  );
  const elapsedMs = performance.now() - t0;
  // Every operation runs the refund exactly once: a side that skipped or repeated it is not measured.
  expect(
    agent.runs() - before === samples.length,
    `${agent.label}: ${agent.runs() - before} refunds ran in ${samples.length} ${mode} operations (${o.run})`,
  );
  const commits = committed === undefined ? null : agent.commits!() - committed;
  return { samples, elapsedMs, commits, ...(synced === undefined ? {} : { syncs: agent.syncs!() - synced }) };
}

/** Both sides of `pair`, every mode and concurrency, in interleaved rounds. */
export async function runOversightPair(
  pair: OversightPair,
  o: OversightOptions,
  log: (line: string) => void = () => undefined,
): Promise<OversightRun[]> {
  const sides = [
    { side: 'framework' as const, agent: pair.own },
    { side: 'interlock' as const, agent: pair.interlock },
  ];
  const tag = `${pair.framework.replace(/\W/g, '')}-${pair.backend}`;
  const out: OversightRun[] = [];
  for (const mode of ['auto', 'gated'] as const) {
    for (const { side, agent } of sides)
      await measure(agent, mode, {
        concurrency: 1,
        seconds: 0,
        minOps: o.warmup,
        turnsPerThread: o.turnsPerThread,
        run: `${tag}-${side}-${mode}-warm`,
      });
    for (const concurrency of o.concurrencies) {
      const got = new Map(
        sides.map((s) => [
          s.side,
          {
            samples: [] as number[],
            elapsedMs: 0,
            commits: null as number | null,
            syncs: undefined as number | undefined,
          },
        ]),
      );
      for (let round = 0; round < o.rounds; round++) {
        // Alternate which side goes first, so neither always follows the other's leftover work.
        for (const { side, agent } of round % 2 ? [...sides].reverse() : sides) {
          await o.settle();
          const m = await measure(agent, mode, {
            concurrency,
            seconds: o.seconds / o.rounds,
            minOps: Math.ceil(o.minOps / o.rounds),
            turnsPerThread: o.turnsPerThread,
            run: `${tag}-${side}-${mode}-c${concurrency}-r${round}`,
          });
          const acc = got.get(side)!;
          acc.samples.push(...m.samples);
          acc.elapsedMs += m.elapsedMs;
          if (m.commits !== null) acc.commits = (acc.commits ?? 0) + m.commits;
          if (m.syncs !== undefined) acc.syncs = (acc.syncs ?? 0) + m.syncs;
        }
      }
      for (const { side, agent } of sides) {
        const acc = got.get(side)!;
        const run: OversightRun = {
          framework: pair.framework,
          backend: pair.backend,
          durability: pair.durability,
          side,
          label: agent.label,
          mode,
          concurrency,
          ops: acc.samples.length,
          opsPerSec: acc.samples.length / (acc.elapsedMs / 1000),
          latencyMs: summarize(acc.samples),
          commitsPerOp: acc.commits === null ? null : acc.commits / acc.samples.length,
          ...(acc.syncs === undefined ? {} : { syncsPerOp: acc.syncs / acc.samples.length }),
        };
        out.push(run);
        log(
          `  ${run.label} (${pair.backend}) ${mode} ×${concurrency}: ${run.opsPerSec.toFixed(1)}/s, p50 ${run.latencyMs.p50.toFixed(2)} ms, p99 ${run.latencyMs.p99.toFixed(2)} ms`,
        );
      }
    }
  }
  return out;
}
