/**
 * `npm run bench [-- --quick] [-- --only=cycles,steps,storage,http,queue,workers,fleet,mcp,oversight] [-- --update-docs]`
 *
 * Runs every suite of the benchmark in one run on this machine — Interlock,
 * LangGraph.js and the database floor side by side — and writes
 * bench/results/latest.md and latest.json (latest-quick.* with --quick) plus a
 * dated copy. See docs/performance.md for the method.
 */
import { execSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createSqliteStore } from '../src/index.ts';
import { ensurePeers } from './setup.ts';
import { BENCH_DATABASE_URL, postgresSettings, Scratch, type Durability } from './lib/backends.ts';
import { machine } from './lib/machine.ts';
import {
  interlockParticipant,
  langGraphParticipant,
  PG_DURABILITY,
  postgresFloorParticipant,
  SQLITE_DURABILITY,
  sqliteFloorParticipant,
  type Participant,
} from './lib/participants.ts';
import { docsSection, judge, machineLine, markdown, replaceDocsSection, type Results } from './lib/report.ts';
import { fmt } from './lib/stats.ts';
import { measureCycles, toRun, warmUp, type CycleSamples } from './suites/cycles.ts';
import { interlockSteps, langGraphSteps } from './suites/steps.ts';
import { runStorage } from './suites/storage.ts';
import { runHttp } from './suites/http.ts';
import { ROLE_MIX, runQueue } from './suites/queue.ts';
import { runWorkers } from './suites/workers.ts';
import { interlockFleetTurn, langGraphFleetTurn, runFleet, type FleetRun } from './suites/fleet.ts';
import { loadLangGraph, type LangGraphPeer } from './peers/langgraph.ts';
import { mcpWork, runMcp } from './suites/mcp.ts';
import { runOversight } from './suites/oversight-run.ts';
import { OVERSIGHT_END, OVERSIGHT_START, oversightDocsSection, replaceBetween } from './lib/report-oversight.ts';

const SUITES = ['cycles', 'steps', 'storage', 'http', 'queue', 'workers', 'fleet', 'mcp', 'oversight'] as const;
type Suite = (typeof SUITES)[number];

const args = process.argv.slice(2);
const quick = args.includes('--quick');
/** Also rewrite the generated sections of README.md and docs/performance.md (full runs only). */
const updateDocs = args.includes('--update-docs');
/** With --only: rerun those suites and put their results into bench/results/latest.json in place of the old ones. */
const merge = args.includes('--merge');
const onlyArg = args.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const only = new Set<Suite>(onlyArg ? (onlyArg.split(',') as Suite[]) : SUITES);
for (const s of only)
  if (!SUITES.includes(s)) throw new Error(`Unknown suite "${s}"; use one of ${SUITES.join(', ')}.`);
if (merge && !onlyArg)
  throw new Error(
    '--merge goes with --only=<suites>: it reruns those suites and merges them into bench/results/latest.json.',
  );

const scale = quick
  ? {
      cycleSeconds: 1.6,
      rounds: 2,
      minCycles: 60,
      warmup: 40,
      settleMs: 200,
      sqliteDurabilities: ['full'] as Durability[],
      storageThreads: 1,
      stepSeconds: 1.5,
      httpRequests: 400,
      queuePending: 100_000,
      queueExpired: 10_000,
      queueSamples: 100,
      workerJobs: 1_000,
      fleetSeconds: 3,
      mcpSeconds: 1.5,
      oversightSeconds: 1.5,
      oversightRounds: 2,
      oversightMinOps: 12,
    }
  : {
      cycleSeconds: 6,
      rounds: 3,
      minCycles: 300,
      warmup: 150,
      settleMs: 1000,
      sqliteDurabilities: ['full', 'normal'] as Durability[],
      storageThreads: 3,
      stepSeconds: 5,
      httpRequests: 2_000,
      queuePending: 1_000_000,
      queueExpired: 100_000,
      queueSamples: 300,
      workerJobs: 10_000,
      fleetSeconds: 10,
      mcpSeconds: 6,
      oversightSeconds: 4,
      oversightRounds: 3,
      oversightMinOps: 30,
    };

/** Agents in flight in the fleet suite. */
const FLEET_AGENTS = 64;

const log = (line: string) => console.log(line);
const started = new Date();
const t0 = performance.now();
const scratch = new Scratch();
const results: Results = {
  meta: {
    startedAt: started.toISOString(),
    durationSec: 0,
    quick,
    command: `npm run bench${quick ? ' -- --quick' : ''}${onlyArg ? ` -- --only=${onlyArg}` : ''}`,
    machine: machine(),
    postgres: await postgresSettings(),
    peers: ensurePeers(log),
    loadAverage: { start: loadavg()[0] ?? 0, end: 0 },
    scale: {
      'seconds per cycle measurement': scale.cycleSeconds,
      'turns per storage thread': 50,
      'HTTP requests': scale.httpRequests,
      'queue pending': scale.queuePending,
      'queue expired': scale.queueExpired,
      roles: ROLE_MIX,
      'worker jobs': scale.workerJobs,
      'fleet: agents in flight': FLEET_AGENTS,
      'fleet: seconds per participant': scale.fleetSeconds,
      'MCP: seconds per participant and concurrency': scale.mcpSeconds,
      'oversight: seconds per side, operation and concurrency': scale.oversightSeconds,
    },
  },
  cycles: [],
  steps: [],
  storage: [],
  http: [],
  queue: [],
  workers: [],
  fleet: [],
  mcp: [],
  oversight: [],
  skipped: [],
  targets: [],
};
const dir = join(dirname(fileURLToPath(import.meta.url)), 'results');
const stamp = started.toISOString().slice(0, 16).replace(':', '-');
// A quick smoke run never replaces the full run's latest.* (which the README quotes).
const latestName = quick ? 'latest-quick' : 'latest';

/** Judge the targets and write the Markdown and JSON; `latest` also replaces latest.* (latest-quick.* for --quick). */
function write(r: Results, name: string, latest: boolean): string {
  r.targets = judge(r);
  mkdirSync(dir, { recursive: true });
  const md = markdown(r);
  const json = JSON.stringify(r, null, 2);
  writeFileSync(join(dir, `${name}.md`), md + '\n');
  writeFileSync(join(dir, `${name}.json`), json + '\n');
  if (latest) {
    writeFileSync(join(dir, `${latestName}.md`), md + '\n');
    writeFileSync(join(dir, `${latestName}.json`), json + '\n');
  }
  return md;
}

// A crash (the database restarted under us, a peer aborting) still leaves what was measured, in a dated file.
process.on('uncaughtException', (err) => {
  console.error('bench: crashed:', err);
  results.skipped.push({
    what: 'the rest of the run (it crashed)',
    why: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
  });
  results.meta.durationSec = (performance.now() - t0) / 1000;
  results.meta.loadAverage.end = loadavg()[0] ?? 0;
  try {
    write(results, `${stamp}${quick ? '-quick' : ''}-crashed`, false);
    console.error(`bench: what was measured is in bench/results/${stamp}${quick ? '-quick' : ''}-crashed.md`);
  } finally {
    process.exit(1);
  }
});
const peers = results.meta.peers;
let lg: LangGraphPeer | undefined;
if (peers.langgraph.ok) lg = await loadLangGraph();
else
  results.skipped.push({ what: 'LangGraph.js (every LangGraph.js row)', why: peers.langgraph.reason ?? 'unavailable' });
if (lg && !peers.sqliteSaver.ok)
  results.skipped.push({ what: 'LangGraph.js SqliteSaver rows', why: peers.sqliteSaver.reason ?? 'unavailable' });
if (lg && !peers.postgresSaver.ok)
  results.skipped.push({ what: 'LangGraph.js PostgresSaver rows', why: peers.postgresSaver.reason ?? 'unavailable' });

/** Let the disk finish writing what the previous measurement left, so it does not slow the next one. */
async function settle(): Promise<void> {
  execSync('sync');
  await new Promise((r) => setTimeout(r, scale.settleMs));
}

/** Participants of suites 1 and 3, in a fixed order; LangGraph rows only where the peer loads. */
function cycleParticipants(): Array<[string, () => Promise<Participant>]> {
  const list: Array<[string, () => Promise<Participant>]> = [];
  for (const d of scale.sqliteDurabilities) {
    list.push([`floor sqlite ${d}`, async () => sqliteFloorParticipant(scratch, d)]);
    list.push([
      `interlock sqlite ${d}`,
      async () => interlockParticipant(await scratch.sqliteStore(d), 'sqlite', SQLITE_DURABILITY(d)),
    ]);
    if (lg && peers.sqliteSaver.ok)
      list.push([`langgraph sqlite ${d}`, () => langGraphParticipant(lg, scratch, 'sqlite', { durability: d })]);
  }
  list.push(['floor postgres', () => postgresFloorParticipant(scratch, 16)]);
  list.push([
    'interlock postgres',
    async () => interlockParticipant((await scratch.postgresStore('cycles', 16)).store, 'postgres', PG_DURABILITY),
  ]);
  if (lg && peers.postgresSaver.ok)
    list.push(['langgraph postgres', () => langGraphParticipant(lg, scratch, 'postgres', { max: 16 })]);
  if (lg) list.push(['langgraph memory', () => langGraphParticipant(lg, scratch, 'memory')]);
  return list;
}

async function suiteCycles(): Promise<void> {
  const made: Array<{ name: string; p: Participant }> = [];
  for (const [name, make] of cycleParticipants()) made.push({ name: name.replace(/\s+/g, '-'), p: await make() });
  for (const concurrency of [1, 16]) {
    for (const { name, p } of made)
      await warmUp(p, { concurrency, cycles: scale.warmup, run: `${name}-c${concurrency}` });
    // Rounds interleave the participants, so a burst of background load is shared instead of landing on one of them.
    const rounds = new Map<Participant, CycleSamples[]>(made.map(({ p }) => [p, []]));
    for (let round = 0; round < scale.rounds; round++) {
      for (const { name, p } of made) {
        await settle();
        const run = `${name}-c${concurrency}-r${round}`;
        rounds.get(p)!.push(
          await measureCycles(p, {
            concurrency,
            seconds: scale.cycleSeconds / scale.rounds,
            minCycles: Math.ceil(scale.minCycles / scale.rounds),
            run,
          }),
        );
      }
    }
    for (const { p } of made) {
      const r = toRun(p, concurrency, rounds.get(p)!);
      results.cycles.push(r);
      log(
        `  ${r.label} (${r.durability}) ×${concurrency}: ${fmt(r.cyclesPerSec)} cycles/s, pause p99 ${fmt(r.pauseMs.p99)} ms, resume p99 ${fmt(r.resumeMs.p99)} ms`,
      );
    }
  }
  for (const { p } of made) await p.close();
  // One participant's rows together: sequential, then in flight.
  const order = made.map(({ p }) => p.label + p.durability);
  results.cycles.sort(
    (a, b) =>
      order.indexOf(a.label + a.durability) - order.indexOf(b.label + b.durability) || a.concurrency - b.concurrency,
  );
}

async function suiteSteps(): Promise<void> {
  const o = { seconds: scale.stepSeconds, minTurns: 100, warmup: 50 };
  const runs = [
    async () =>
      interlockSteps(
        await migrated(createSqliteStore({ path: ':memory:' })),
        'Interlock · SQLite in memory',
        'engine + ledger in an in-memory SQLite (no disk)',
        o,
      ),
    async () => interlockSteps(await scratch.sqliteStore('full'), 'Interlock · SQLite', SQLITE_DURABILITY('full'), o),
    async () =>
      interlockSteps((await scratch.postgresStore('steps')).store, 'Interlock · PostgreSQL', PG_DURABILITY, o),
    ...(lg ? [() => langGraphSteps(lg, 'none', o), () => langGraphSteps(lg, 'memory', o)] : []),
  ];
  for (const run of runs) {
    await settle();
    const r = await run();
    results.steps.push(r);
    log(`  ${r.label}: ${fmt(r.perStepMs)} ms per step`);
  }
}

async function migrated<T extends { migrate(): Promise<void> }>(s: T): Promise<T> {
  await s.migrate();
  return s;
}

async function suiteStorage(): Promise<void> {
  const list: Array<() => Promise<Participant>> = [
    async () => interlockParticipant(await scratch.sqliteStore('full'), 'sqlite', SQLITE_DURABILITY('full')),
    async () => interlockParticipant((await scratch.postgresStore('storage')).store, 'postgres', PG_DURABILITY),
  ];
  if (lg && peers.sqliteSaver.ok) {
    list.push(() => langGraphParticipant(lg, scratch, 'sqlite'));
    list.push(() => langGraphParticipant(lg, scratch, 'sqlite', { delta: true }));
  }
  if (lg && peers.postgresSaver.ok) list.push(() => langGraphParticipant(lg, scratch, 'postgres'));
  for (const make of list) {
    const p = await make();
    const r = await runStorage(p, { threads: scale.storageThreads, run: 'st' });
    results.storage.push(r);
    log(`  ${r.label}: ${r.points.map((x) => `${x.turn}→${fmt(x.multiple)}×`).join(' ')}`);
    await p.close();
  }
}

async function suiteHttp(): Promise<void> {
  const runs = [
    {
      label: 'SQLite',
      backend: 'sqlite' as const,
      durability: SQLITE_DURABILITY('full'),
      args: ['sqlite', scratch.file('http'), 'full'],
    },
    {
      label: 'PostgreSQL',
      backend: 'postgres' as const,
      durability: PG_DURABILITY,
      args: ['postgres', scratch.schema('http')],
    },
  ];
  for (const r of runs) {
    await settle();
    const h = await runHttp({ ...r, requests: scale.httpRequests, concurrency: 16 });
    results.http.push(h);
    log(
      `  ${h.label}: ${fmt(h.decisionsPerSec)} decisions/s, p99 ${fmt(h.latencyMs.p99)} ms, double executions ${h.doubleExecutions}`,
    );
  }
}

async function suiteQueue(): Promise<void> {
  for (const backend of ['sqlite', 'postgres'] as const) {
    await settle();
    const store =
      backend === 'sqlite' ? await scratch.sqliteStore('full', 'queue') : (await scratch.postgresStore('queue')).store;
    const q = await runQueue(store, {
      label: backend === 'sqlite' ? 'SQLite' : 'PostgreSQL',
      pending: scale.queuePending,
      expired: scale.queueExpired,
      samples: scale.queueSamples,
    });
    results.queue.push(q);
    log(
      `  ${q.label}: first page p99 ${q.pages.map((p) => `${p.role}/${p.order} ${fmt(p.latencyMs.p99)} ms`).join(', ')}; swept ${q.expired} in ${fmt(q.sweepSec)} s`,
    );
    await store.close();
  }
}

async function suiteWorkers(): Promise<void> {
  for (const processes of [1, 2, 4]) {
    await settle();
    const { store, schema } = await scratch.postgresStore('workers');
    const w = await runWorkers(store, schema, processes, scale.workerJobs);
    results.workers.push(w);
    log(
      `  ${processes} worker process(es): ${w.jobs} jobs in ${fmt(w.drainSec)} s (${fmt(w.jobsPerSec)}/s), double executions ${w.doubleExecutions}`,
    );
    await store.close();
  }
}

async function suiteFleet(): Promise<void> {
  const o = { agents: FLEET_AGENTS, seconds: scale.fleetSeconds, warmup: 2 };
  const sqlite = SQLITE_DURABILITY('full');
  const runs: Array<() => Promise<void>> = [
    async () => {
      const store = await scratch.sqliteStore('full', 'fleet');
      push(
        await runFleet(
          { label: 'Interlock · SQLite', backend: 'sqlite', persistence: sqlite },
          { ...o, run: 'il-sqlite' },
          interlockFleetTurn(store),
        ),
      );
      await store.close();
    },
  ];
  if (lg && peers.sqliteSaver.ok)
    runs.push(async () => {
      const { saver, db } = await lg.sqliteSaver(scratch.file('langgraph-fleet'), 'FULL');
      push(
        await runFleet(
          { label: 'LangGraph.js · SqliteSaver', backend: 'sqlite', persistence: sqlite },
          { ...o, run: 'lg-sqlite' },
          langGraphFleetTurn(lg, saver),
        ),
      );
      db.close();
    });
  runs.push(async () => {
    const { store } = await scratch.postgresStore('fleet', 16);
    push(
      await runFleet(
        { label: 'Interlock · PostgreSQL', backend: 'postgres', persistence: PG_DURABILITY },
        { ...o, run: 'il-pg' },
        interlockFleetTurn(store),
      ),
    );
    await store.close();
  });
  if (lg && peers.postgresSaver.ok)
    runs.push(async () => {
      const saver = await lg.postgresSaver(BENCH_DATABASE_URL, scratch.schema('langgraph_fleet'), 16);
      push(
        await runFleet(
          { label: 'LangGraph.js · PostgresSaver', backend: 'postgres', persistence: PG_DURABILITY },
          { ...o, run: 'lg-pg' },
          langGraphFleetTurn(lg, saver),
        ),
      );
      await saver.end();
    });
  function push(r: FleetRun) {
    (results.fleet ??= []).push(r);
    log(
      `  ${r.label} ×${r.agents}: ${fmt(r.turnsPerSec)} turns/s (${fmt(r.stepsPerSec)} steps/s), turn p99 ${fmt(r.turnMs.p99)} ms`,
    );
  }
  for (const run of runs) {
    await settle();
    await run();
  }
}

async function suiteMcp(): Promise<void> {
  const runs = await runMcp(scratch, {
    seconds: scale.mcpSeconds,
    rounds: scale.rounds,
    minCalls: 100,
    warmup: 300,
    settle,
    durability: { sqlite: SQLITE_DURABILITY('full'), postgres: PG_DURABILITY },
  });
  results.mcp = runs;
  for (const r of runs)
    log(
      `  ${r.label} ×${r.concurrency}: ${fmt(r.callsPerSec)} calls/s, p50 ${fmt(r.latencyMs.p50)} ms, p99 ${fmt(r.latencyMs.p99)} ms`,
    );
  const work = [];
  for (const backend of ['sqlite', 'postgres'] as const) {
    const store =
      backend === 'sqlite'
        ? await scratch.sqliteStore('full', 'mcp-work')
        : (await scratch.postgresStore('mcpw')).store;
    work.push(await mcpWork(store, backend, 200));
    await store.close();
  }
  results.mcpWork = work;
}

async function suiteOversight(): Promise<void> {
  const o = {
    seconds: scale.oversightSeconds,
    rounds: scale.oversightRounds,
    minOps: scale.oversightMinOps,
    warmup: 20,
    turnsPerThread: 5,
    concurrencies: [1, 16],
    settle,
  };
  // LangChain's side needs LangGraph's own checkpointers (the peers); without them its rows say why.
  const savers = { sqlite: !!lg && peers.sqliteSaver.ok, postgres: !!lg && peers.postgresSaver.ok };
  for (const [backend, ok] of Object.entries(savers))
    if (!ok)
      results.skipped.push({
        what: `Cost of oversight: LangChain on ${backend}`,
        why: 'its checkpointer peer is unavailable (above)',
      });
  results.oversight = await runOversight(scratch, lg, savers, o, log);
}

const suites: Record<Suite, [string, () => Promise<void>]> = {
  cycles: ['1. pause → decide → resume cycles', suiteCycles],
  steps: ['2. steps that do not pause', suiteSteps],
  storage: ['3. storage growth', suiteStorage],
  http: ['4. decisions over HTTP', suiteHttp],
  queue: ['5. queue at scale', suiteQueue],
  workers: ['6. workers on PostgreSQL', suiteWorkers],
  fleet: ['7. a fleet of agents', suiteFleet],
  mcp: ['8. the MCP gateway', suiteMcp],
  oversight: ['9. cost of oversight, per adapter', suiteOversight],
};

try {
  for (const s of SUITES) {
    if (!only.has(s)) continue;
    const [title, run] = suites[s];
    log(`bench ${title}${quick ? ' (quick)' : ''}`);
    try {
      await run();
    } catch (err) {
      // One suite failing (a peer, the server) must not lose the others' results: say why in the table.
      const why = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      results.skipped.push({ what: `suite ${title} (failed part-way; rows before the failure are kept)`, why });
      log(`  failed: ${why}`);
    }
  }
} finally {
  await scratch.cleanup();
}

results.meta.durationSec = (performance.now() - t0) / 1000;
results.meta.loadAverage.end = loadavg()[0] ?? 0;
let final = results;
if (merge) {
  // The suites rerun now replace theirs in the last complete run; the rest of it stands.
  const prev = JSON.parse(readFileSync(join(dir, `${latestName}.json`), 'utf8')) as Results;
  const titles = [...only].map((s) => suites[s][0]);
  for (const s of only) (prev[s] as unknown[]) = results[s] ?? [];
  if (only.has('mcp')) prev.mcpWork = results.mcpWork ?? [];
  prev.skipped = [
    ...prev.skipped.filter((x) => !titles.some((t) => x.what.includes(t))),
    ...results.skipped.filter((x) => titles.some((t) => x.what.includes(t))),
  ];
  prev.meta.merged = [
    ...(prev.meta.merged ?? []),
    { suites: [...only], at: results.meta.startedAt, loadAverage: results.meta.loadAverage },
  ];
  final = prev;
}
const complete = !onlyArg || merge;
const name = `${stamp}${quick ? '-quick' : ''}${onlyArg ? (merge ? '-merged' : '-partial') : ''}`;
const md = write(final, name, complete);
if (updateDocs && !quick && complete) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  for (const [file, compact] of [
    ['README.md', true],
    ['docs/performance.md', false],
  ] as const) {
    const path = join(root, file);
    if (!existsSync(path)) continue;
    const before = readFileSync(path, 'utf8');
    const after = replaceDocsSection(before, docsSection(final, compact));
    if (after !== before) writeFileSync(path, after);
    log(
      after !== before
        ? `bench: updated the results in ${file}`
        : `bench: ${file} has no bench markers, or nothing changed`,
    );
  }
} else if (updateDocs) {
  log(
    'bench: the results section of README.md and docs/performance.md is rewritten by a full run (no --quick; --only only with --merge); left as it is',
  );
}
if (updateDocs && only.has('oversight') && results.oversight?.length) {
  // Its own markers: it is rewritten by any run that measured it, and names its own command and load.
  const path = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'performance.md');
  const before = readFileSync(path, 'utf8');
  const after = replaceBetween(
    before,
    OVERSIGHT_START,
    OVERSIGHT_END,
    oversightDocsSection(results, machineLine(results)),
  );
  if (after !== before) writeFileSync(path, after);
  log(
    after !== before
      ? 'bench: updated Cost of oversight in docs/performance.md'
      : 'bench: docs/performance.md has no oversight markers',
  );
}
log('');
log(md.split('\n## 1.')[0]!);
log(
  `bench: wrote bench/results/${complete ? `${latestName}.md and ${name}.md` : `${name}.md`} (${fmt(results.meta.durationSec)} s)`,
);
// Peer pools (pg) may hold the event loop open.
process.exit(0);
