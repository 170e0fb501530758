/**
 * A small probe for profiling one thing at a time: Interlock's pause → decide → resume cycles on one
 * backend, for a few seconds, with the benchmark's workload. It prints cycles/s, resume p50/p99, and
 * per cycle the transactions, statements and (PostgreSQL) round trips or (SQLite) syncs and messages to the store's thread.
 *
 *   node bench/cycle-probe.ts postgres 1 6            # backend, in flight, seconds
 *   node --cpu-prof bench/cycle-probe.ts sqlite 16 6  # with a CPU profile of the same run
 *   PROBE_DURABILITY=normal node bench/cycle-probe.ts sqlite 1 6   # SQLite without a sync per commit
 *   PROBE_SQL='DROP INDEX il_requests_expiry' node bench/cycle-probe.ts sqlite 16 6  # a schema experiment
 *
 * For an A/B of two commits, run it from two checkouts in turn, several rounds interleaved: this
 * machine's speed drifts by more than most single changes. Not part of `npm run bench`.
 */
import { runProbeSql, Scratch } from './lib/backends.ts';
import { interlockPause, interlockResume, interlockRig } from './lib/workload.ts';
import { TURNS_PER_THREAD } from './suites/cycles.ts';

const [backendArg = 'postgres', inFlightArg = '1', secondsArg = '6'] = process.argv.slice(2);
if (backendArg !== 'postgres' && backendArg !== 'sqlite') {
  console.error('usage: node bench/cycle-probe.ts postgres|sqlite [in flight] [seconds]');
  process.exit(2);
}
const inFlight = Number(inFlightArg);
const seconds = Number(secondsArg);

const scratch = new Scratch();
const store =
  backendArg === 'postgres'
    ? (await scratch.postgresStore('probe', 16)).store
    : await scratch.sqliteStore((process.env.PROBE_DURABILITY as 'full' | 'normal') ?? 'full');
await runProbeSql(store);
const rig = interlockRig(store, 'gated');

async function cycles(ms: number, tag: string) {
  const resumes: number[] = [];
  const end = performance.now() + ms;
  await Promise.all(
    Array.from({ length: inFlight }, async (_, w) => {
      for (let k = 0; performance.now() < end; k++) {
        const threadId = `${tag}-${w}-${Math.floor(k / TURNS_PER_THREAD)}`;
        const id = await interlockPause(rig, threadId, (k % TURNS_PER_THREAD) + 1);
        const t = performance.now();
        await interlockResume(rig, threadId, id);
        resumes.push(performance.now() - t);
      }
    }),
  );
  resumes.sort((a, b) => a - b);
  const at = (q: number) => resumes[Math.min(resumes.length - 1, Math.floor(resumes.length * q))] ?? 0;
  return { n: resumes.length, p50: at(0.5), p99: at(0.99) };
}

try {
  await cycles(2000, 'warm');
  const before = { roundTrips: 0, ...store.stats };
  const r = await cycles(seconds * 1000, 'run');
  const after = { roundTrips: 0, ...store.stats };
  const per = (a: number, b: number) => ((a - b) / r.n).toFixed(2);
  console.log(
    `${backendArg} ×${inFlight}: ${(r.n / seconds).toFixed(1)} cycles/s, resume p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms; ` +
      `per cycle ${per(after.transactions, before.transactions)} transactions, ${per(after.statements, before.statements)} statements` +
      (backendArg === 'postgres'
        ? `, ${per(after.roundTrips, before.roundTrips)} round trips`
        : `, ${per(after.syncs ?? 0, before.syncs ?? 0)} syncs, ${per(after.hops ?? 0, before.hops ?? 0)} messages to the store's thread`),
  );
} finally {
  await store.close();
  await scratch.cleanup();
}
