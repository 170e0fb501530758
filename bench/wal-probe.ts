/**
 * SQLite WAL pages per gated cycle: Interlock's pause → decide → resume cycles (the benchmark's
 * workload) on a SQLite file, with the WAL's frame count read from a second connection before and
 * after. Each frame is one page written; fewer pages per commit is what a SQLite cycle gains from a
 * change of schema or protocol. Pages are counted, not timed: the number does not drift with the
 * machine. Not part of `npm run bench`.
 *
 *   node bench/wal-probe.ts [cycles]   # default 10 (kept under SQLite's 1,000-frame autocheckpoint)
 *   PROBE_SQL='DROP INDEX il_requests_expiry' node bench/wal-probe.ts   # a schema experiment
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { runProbeSql, Scratch } from './lib/backends.ts';
import { interlockPause, interlockResume, interlockRig } from './lib/workload.ts';
import { TURNS_PER_THREAD } from './suites/cycles.ts';

const cycles = Number(process.argv[2] ?? 10);
const scratch = new Scratch();
const store = await scratch.sqliteStore('full');
await runProbeSql(store);
const rig = interlockRig(store, 'gated');

async function run(tag: string, n: number): Promise<void> {
  for (let k = 0; k < n; k++) {
    const threadId = `${tag}-${Math.floor(k / TURNS_PER_THREAD)}`;
    await interlockResume(rig, threadId, await interlockPause(rig, threadId, (k % TURNS_PER_THREAD) + 1));
  }
}

await run('warm', 10);
const file = readdirSync(scratch.dir).find((f) => !f.endsWith('-wal') && !f.endsWith('-shm'))!;
const db = new DatabaseSync(join(scratch.dir, file));
db.exec('PRAGMA wal_autocheckpoint=0');
// A TRUNCATE empties the WAL; the next writer starts it from frame 0. A PASSIVE checkpoint reports the frames since.
db.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get();
await run('measured', cycles);
const { log } = db.prepare('PRAGMA wal_checkpoint(PASSIVE)').get() as { log: number };
console.log(`sqlite (synchronous=FULL): ${(log / cycles).toFixed(1)} WAL pages per cycle over ${cycles} cycles`);
process.exit(0);
