/**
 * A small probe of the MCP gateway's overhead, for profiling and quick A/B runs: the benchmark's
 * MCP suite (direct vs `interlock mcp` on SQLite and PostgreSQL, interleaved) at a chosen scale, then
 * the store's work per call counted in process. Not part of `npm run bench`.
 *
 *   node bench/mcp-probe.ts [seconds per participant] [rounds]     # default 3 s, 3 rounds
 *   INTERLOCK_MCP_PROF=/tmp/prof node bench/mcp-probe.ts 6 2       # the gateways write CPU profiles there
 *   INTERLOCK_MCP_COMPARE=/tmp/other node bench/mcp-probe.ts        # another checkout's gateway in the same rounds
 */
import { execSync } from 'node:child_process';
import { Scratch } from './lib/backends.ts';
import { PG_DURABILITY, SQLITE_DURABILITY } from './lib/participants.ts';
import { fmt } from './lib/stats.ts';
import { mcpWork, runMcp } from './suites/mcp.ts';

const [secondsArg = '3', roundsArg = '3'] = process.argv.slice(2);
const scratch = new Scratch();
try {
  const runs = await runMcp(scratch, {
    seconds: Number(secondsArg) * Number(roundsArg),
    rounds: Number(roundsArg),
    minCalls: 50,
    warmup: 200,
    settle: async () => {
      execSync('sync');
      await new Promise((r) => setTimeout(r, 200));
    },
    durability: { sqlite: SQLITE_DURABILITY('full'), postgres: PG_DURABILITY },
    ...(process.env.INTERLOCK_MCP_COMPARE ? { compare: process.env.INTERLOCK_MCP_COMPARE } : {}),
  });
  for (const r of runs) {
    const direct = runs.find((x) => x.backend === 'direct' && x.concurrency === r.concurrency)!;
    console.log(
      `${r.label.padEnd(28)} ×${String(r.concurrency).padEnd(2)} ${fmt(r.callsPerSec).padStart(6)} calls/s  p50 ${fmt(r.latencyMs.p50)} ms  p99 ${fmt(r.latencyMs.p99)} ms` +
        (r.backend === 'direct'
          ? ''
          : `  (+${fmt(r.latencyMs.p50 - direct.latencyMs.p50)} ms p50, ${fmt(r.callsPerSec / direct.callsPerSec)}× direct)`),
    );
  }
  for (const backend of ['sqlite', 'postgres'] as const) {
    const store =
      backend === 'sqlite'
        ? await scratch.sqliteStore('full', 'mcp-work')
        : (await scratch.postgresStore('mcpw')).store;
    const w = await mcpWork(store, backend, 200);
    console.log(
      `per call on ${backend}: ${fmt(w.transactions)} transactions, ${fmt(w.statements)} statements${w.roundTrips === null ? '' : `, ${fmt(w.roundTrips)} round trips`}`,
    );
    await store.close();
  }
} finally {
  await scratch.cleanup();
}
process.exit(0);
