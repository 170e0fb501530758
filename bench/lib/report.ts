/**
 * The results of one run: JSON as measured, and the Markdown tables the README
 * and docs/performance.md show. Targets are judged here, from ratios measured
 * in the same run.
 */
import type { CycleRun } from '../suites/cycles.ts';
import type { StepRun } from '../suites/steps.ts';
import type { StorageRun } from '../suites/storage.ts';
import type { HttpRun } from '../suites/http.ts';
import type { QueueRun } from '../suites/queue.ts';
import type { WorkerRun } from '../suites/workers.ts';
import type { FleetRun } from '../suites/fleet.ts';
import type { Machine } from './machine.ts';
import type { PeerStatus } from '../setup.ts';
import { fmt, ratio } from './stats.ts';
import { mcpSection, mcpTable, mcpTargets, mcpWorkLine, type McpResults } from './report-mcp.ts';
import { oversightSection, oversightTargets, type OversightResults } from './report-oversight.ts';

export interface Results extends McpResults, OversightResults {
  meta: {
    startedAt: string;
    durationSec: number;
    quick: boolean;
    command: string;
    machine: Machine;
    postgres: Record<string, string>;
    peers: PeerStatus;
    scale: Record<string, number | string>;
    /** 1-minute load average before and after the run: other work on the machine skews results. */
    loadAverage: { start: number; end: number };
    /** Suites rerun later (`--only=… --merge`) and merged into this run's results. */
    merged?: Array<{ suites: string[]; at: string; loadAverage: { start: number; end: number } }>;
  };
  cycles: CycleRun[];
  steps: StepRun[];
  /** Absent in results written before the fleet suite existed. */
  fleet?: FleetRun[];
  storage: StorageRun[];
  http: HttpRun[];
  queue: QueueRun[];
  workers: WorkerRun[];
  /** Suites or rows that could not run here, and exactly why. */
  skipped: Array<{ what: string; why: string }>;
  targets: Target[];
}

export interface Target {
  target: string;
  measured: string;
  met: boolean | null;
}

const floorOf = (r: Results, c: CycleRun) =>
  r.cycles.find(
    (x) =>
      x.system === 'floor' &&
      x.backend === c.backend &&
      x.durability === c.durability &&
      x.concurrency === c.concurrency,
  );
const langGraphOf = (r: Results, c: CycleRun) =>
  r.cycles.find(
    (x) =>
      x.system === 'langgraph' &&
      x.backend === c.backend &&
      x.durability === c.durability &&
      x.concurrency === c.concurrency &&
      !x.label.includes('Delta'),
  );

/** Each target, judged on this run's numbers. */
export function judge(r: Results): Target[] {
  const out: Target[] = [];
  for (const c of r.cycles.filter((x) => x.system === 'interlock')) {
    const where = `${c.backend === 'sqlite' ? 'SQLite' : 'PostgreSQL'}, ${c.durability}, ${c.concurrency === 1 ? 'sequential' : `${c.concurrency} in flight`}`;
    const lg = langGraphOf(r, c);
    if (lg)
      out.push({
        target: `Cycles ≥ 10× LangGraph.js (${where})`,
        measured: ratio(c.cyclesPerSec, lg.cyclesPerSec),
        met: c.cyclesPerSec >= 10 * lg.cyclesPerSec,
      });
    const fl = floorOf(r, c);
    if (fl)
      out.push({
        target: `Cycles ≥ 1/3 of the floor (${where})`,
        measured: ratio(c.cyclesPerSec, fl.cyclesPerSec),
        met: c.cyclesPerSec >= fl.cyclesPerSec / 3,
      });
    if (c.backend === 'sqlite' && c.concurrency === 16)
      out.push({
        target: `Resume p99 ≤ 10 ms at 16 in flight (SQLite, ${c.durability})`,
        measured: `${fmt(c.resumeMs.p99)} ms`,
        met: c.resumeMs.p99 <= 10,
      });
  }
  for (const s of r.storage.filter((x) => x.label.startsWith('Interlock'))) {
    const p = s.points[s.points.length - 1];
    if (p)
      out.push({
        target: `Storage ≤ 2× final state at ${p.turn} turns (${s.label})`,
        measured: `${fmt(p.multiple)}×`,
        met: p.multiple <= 2,
      });
  }
  const lgSteps = r.steps.find((x) => x.label === 'LangGraph.js · no checkpointer');
  const ilSteps = r.steps.find((x) => x.label.startsWith('Interlock') && x.persistence.includes('memory'));
  if (lgSteps && ilSteps) {
    // Judged on the mean (what a busy loop pays, garbage collection included); the median is shown beside it.
    out.push({
      target: 'Non-pausing step overhead ≤ 1/5 of LangGraph.js without a checkpointer',
      measured: `${ratio(ilSteps.perStepMs, lgSteps.perStepMs)} of LangGraph's (mean; median ${ratio(ilSteps.turnMs.p50, lgSteps.turnMs.p50)})`,
      met: ilSteps.perStepMs <= lgSteps.perStepMs / 5,
    });
  }
  for (const q of r.queue) {
    const worst = Math.max(...q.pages.map((p) => p.latencyMs.p99));
    out.push({
      target: `Queue first page p99 < 20 ms with ${q.pending.toLocaleString('en-US')} pending (${q.label})`,
      measured: `${fmt(worst)} ms (worst of ${q.pages.length} queries)`,
      met: worst < 20,
    });
  }
  const doubles =
    r.http.reduce((s, h) => s + h.doubleExecutions + h.doubleDecisions, 0) +
    r.workers.reduce((s, w) => s + w.doubleExecutions, 0);
  if (r.http.length || r.workers.length)
    out.push({
      target: 'Double executions = 0 (HTTP decisions and workers)',
      measured: String(doubles),
      met: doubles === 0,
    });
  out.push(...mcpTargets(r));
  out.push(...oversightTargets(r));
  return out;
}

const ms = (n: number) => fmt(n);
const yes = (m: boolean | null) => (m === null ? '—' : m ? '✅ met' : '❌ missed');

function table(head: string[], rows: string[][]): string {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

/** Machine and settings, one paragraph. */
export function machineLine(r: Results): string {
  const m = r.meta.machine;
  return `${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB RAM, ${m.os} (Linux ${m.kernel}), disk ${m.disk}; Node ${m.node}, SQLite ${m.sqlite}, PostgreSQL ${r.meta.postgres.server_version ?? '?'}`;
}

/** The headline table: cycles, plus the targets. */
export function headline(r: Results, keep: (c: CycleRun) => boolean = () => true): string {
  const rows = r.cycles
    .filter(keep)
    .map((c) => [
      c.label,
      c.durability,
      c.concurrency === 1 ? '1' : String(c.concurrency),
      fmt(c.cyclesPerSec),
      `${ms(c.pauseMs.p50)} / ${ms(c.pauseMs.p99)}`,
      `${ms(c.resumeMs.p50)} / ${ms(c.resumeMs.p99)}`,
      c.system === 'floor' ? '1×' : ratio(c.cyclesPerSec, floorOf(r, c)?.cyclesPerSec),
      c.system === 'interlock' ? ratio(c.cyclesPerSec, langGraphOf(r, c)?.cyclesPerSec) : '',
    ]);
  return table(
    [
      'participant',
      'durability',
      'in flight',
      'cycles/s',
      'pause p50 / p99 ms',
      'resume p50 / p99 ms',
      'vs floor',
      'vs LangGraph.js',
    ],
    rows,
  );
}

export function targetsTable(r: Results, keep: (t: Target) => boolean = () => true): string {
  return table(
    ['target', 'measured', ''],
    r.targets.filter(keep).map((t) => [t.target, t.measured, yes(t.met)]),
  );
}

export function markdown(r: Results): string {
  const out: string[] = [];
  out.push(
    `# Interlock benchmark — ${r.meta.startedAt.slice(0, 16).replace('T', ' ')} UTC${r.meta.quick ? ' (quick)' : ''}`,
  );
  out.push('');
  out.push(
    `Machine: ${machineLine(r)}. Load average (1 min) ${fmt(r.meta.loadAverage.start)} at the start, ${fmt(r.meta.loadAverage.end)} at the end${Math.max(r.meta.loadAverage.start, r.meta.loadAverage.end) > 1 ? ' — other work was running on this 2-core machine, so absolute numbers are noisy; ratios come from rounds that interleave the participants' : ''}.`,
  );
  out.push('');
  for (const m of r.meta.merged ?? []) {
    out.push(
      `Rerun on ${m.at.slice(0, 16).replace('T', ' ')} UTC and merged into this run: ${m.suites.join(', ')} (load average ${fmt(m.loadAverage.start)} → ${fmt(m.loadAverage.end)}).`,
    );
    out.push('');
  }
  out.push(
    `Durability: SQLite rows use WAL with the \`synchronous\` setting shown, the same on Interlock, the floor and LangGraph's SqliteSaver (Interlock's default is FULL: every commit is synced). PostgreSQL rows use the server's defaults on every participant (fsync=${r.meta.postgres.fsync ?? '?'}, synchronous_commit=${r.meta.postgres.synchronous_commit ?? '?'}, wal_sync_method=${r.meta.postgres.wal_sync_method ?? '?'}).`,
  );
  out.push('');
  const p = r.meta.peers;
  out.push(
    `Peers: @langchain/langgraph ${p.langgraph.version ?? '(unavailable)'}, langgraph-checkpoint-sqlite ${p.sqliteSaver.version ?? '(unavailable)'}, langgraph-checkpoint-postgres ${p.postgresSaver.version ?? '(unavailable)'}. Scale: ${Object.entries(
      r.meta.scale,
    )
      .map(([k, v]) => `${k} ${typeof v === 'number' ? v.toLocaleString('en-US') : v}`)
      .join(', ')}. Run took ${fmt(r.meta.durationSec)} s. Rerun: \`${r.meta.command}\`.`,
  );
  out.push('');
  if (r.skipped.length) {
    out.push('**Could not run here:**');
    for (const s of r.skipped) out.push(`- ${s.what}: ${s.why}`);
    out.push('');
  }
  out.push('## Targets');
  out.push('');
  out.push(targetsTable(r));
  out.push('');

  out.push('## 1. Pause → decide → resume cycles');
  out.push('');
  out.push(
    'A cycle is one conversation turn: the user message, a model step proposing a gated `issue_refund` (the pause), then an approval and the rest of the turn (the resume: the refund runs once, the model answers). Threads run five turns each. "vs floor" and "vs LangGraph.js" compare cycles/s with the floor and with LangGraph.js on the same backend, durability and concurrency.',
  );
  out.push('');
  out.push(headline(r));
  out.push('');
  const prof = r.cycles.filter((c) => c.perCycle && c.system === 'interlock');
  if (prof.length) {
    out.push(
      'Work per cycle (sequential runs; PostgreSQL round trips = the times the process waited for the server: statements sent with the next one or with the COMMIT share its round trip):',
    );
    out.push('');
    out.push(
      table(
        [
          'participant',
          'pause: transactions / statements',
          'resume: transactions / statements',
          'cycle: transactions / statements',
          'PostgreSQL round trips',
        ],
        prof.map((c) => {
          const x = c.perCycle!;
          const t = x.pause.transactions + x.resume.transactions;
          const s = x.pause.statements + x.resume.statements;
          return [
            `${c.label} (${c.durability})`,
            `${fmt(x.pause.transactions)} / ${fmt(x.pause.statements)}`,
            `${fmt(x.resume.transactions)} / ${fmt(x.resume.statements)}`,
            `${fmt(t)} / ${fmt(s)}`,
            c.backend === 'postgres' ? fmt((x.pause.roundTrips ?? 0) + (x.resume.roundTrips ?? 0)) : '—',
          ];
        }),
      ),
    );
    out.push('');
    out.push('The floor does 2 transactions / 2 statements per cycle (2 round trips on PostgreSQL).');
    out.push('');
  }

  if (r.steps.length) {
    out.push('## 2. Steps that do not pause');
    out.push('');
    out.push(
      'A turn on a fresh thread: the model proposes a refund the policy lets run alone (`auto`), the tool runs, the model answers — two model steps and one auto-approved tool call. Per step = mean turn time / 2.',
    );
    out.push('');
    const base = r.steps.find((x) => x.label === 'LangGraph.js · no checkpointer');
    out.push(
      table(
        [
          'participant',
          'persistence',
          'per step (ms)',
          'turn p50 / p99 (ms)',
          'transactions / statements per turn',
          'vs LangGraph.js, no checkpointer',
        ],
        r.steps.map((s) => [
          s.label,
          s.persistence,
          ms(s.perStepMs),
          `${ms(s.turnMs.p50)} / ${ms(s.turnMs.p99)}`,
          s.perTurn ? `${fmt(s.perTurn.transactions)} / ${fmt(s.perTurn.statements)}` : '—',
          ratio(s.perStepMs, base?.perStepMs),
        ]),
      ),
    );
    out.push('');
  }

  if (r.storage.length) {
    out.push('## 3. Storage growth');
    out.push('');
    out.push(
      "Bytes one thread's persisted state takes after N turns (one pause each), as a multiple of the final state's JSON size (messages + loop state for Interlock; the graph state's values for LangGraph.js). Interlock counts messages and checkpoints; \"with audit…\" adds the thread's approval requests, audit events, ledger rows and jobs. LangGraph.js counts checkpoints, blobs and writes. Logical bytes (before PostgreSQL's TOAST compression).",
    );
    out.push('');
    const turns = r.storage[0]?.points.map((p) => p.turn) ?? [];
    out.push(
      table(
        [
          'participant',
          ...turns.map((t) => `${t} turn${t > 1 ? 's' : ''}`),
          `final state at ${turns[turns.length - 1] ?? '?'}`,
          `stored at ${turns[turns.length - 1] ?? '?'}`,
        ],
        r.storage.flatMap((s) => {
          const lastP = s.points[s.points.length - 1];
          const rows = [
            [
              s.label,
              ...s.points.map((p) => `${fmt(p.multiple)}×`),
              lastP ? `${fmt(lastP.stateBytes / 1024)} KiB` : '—',
              lastP ? `${fmt(lastP.storedBytes / 1024)} KiB` : '—',
            ],
          ];
          if (s.points.some((p) => p.allMultiple !== null)) {
            rows.push([
              `${s.label}, with audit, requests, ledger, jobs`,
              ...s.points.map((p) => `${fmt(p.allMultiple)}×`),
              '',
              lastP?.allBytes ? `${fmt(lastP.allBytes / 1024)} KiB` : '—',
            ]);
          }
          return rows;
        }),
      ),
    );
    out.push('');
    out.push('Cost with conversation length — median pause + resume time (ms) over the five turns up to N:');
    out.push('');
    out.push(
      table(
        ['participant', ...turns.map((t) => `turn ${t}`)],
        r.storage.map((s) => [s.label, ...s.points.map((p) => ms(p.cycleMs))]),
      ),
    );
    out.push('');
  }

  if (r.http.length) {
    out.push('## 4. Decisions over HTTP');
    out.push('');
    out.push(
      'The API server and a resume worker in a child process; the parent posts approvals with concurrent clients. Every request gets two simultaneous approvals from two supervisors: one must win, the other gets 409. After the load, the worker drains the resumes and we count side effects per idempotency key.',
    );
    out.push('');
    out.push(
      table(
        [
          'backend',
          'durability',
          'clients',
          'decisions/s',
          'POSTs/s',
          'POST p50 / p99 (ms)',
          'winners / requests',
          'double decisions',
          'executed',
          'double executions',
        ],
        r.http.map((h) => [
          h.label,
          h.durability,
          String(h.concurrency),
          fmt(h.decisionsPerSec),
          fmt(h.postsPerSec),
          `${ms(h.latencyMs.p50)} / ${ms(h.latencyMs.p99)}`,
          `${h.winners} / ${h.requests}`,
          String(h.doubleDecisions),
          String(h.executed),
          String(h.doubleExecutions),
        ]),
      ),
    );
    out.push('');
  }

  if (r.queue.length) {
    out.push('## 5. Queue at scale');
    out.push('');
    out.push(
      `Pending requests bulk-inserted with one INSERT … SELECT per 250,000 rows (roles: ${r.meta.scale.roles ?? ''}), the first page (50) of the queue filtered by one role or two (a reviewer with two roles) through \`interlock.listRequests\`, then \`expireDue()\` applying the timeout default to the expired ones (each gets its audit event and resume job).`,
    );
    out.push('');
    out.push(
      table(
        ['backend', 'pending', 'role', 'order', 'first page p50 / p99 (ms)'],
        r.queue.flatMap((q) =>
          q.pages.map((p) => [
            q.label,
            q.pending.toLocaleString('en-US'),
            p.role,
            p.order,
            `${ms(p.latencyMs.p50)} / ${ms(p.latencyMs.p99)}`,
          ]),
        ),
      ),
    );
    out.push('');
    out.push(
      table(
        ['backend', 'bulk insert (s)', 'expired by the sweeper', 'sweep (s)', 'expired/s'],
        r.queue.map((q) => [
          q.label,
          fmt(q.insertSec),
          q.expired.toLocaleString('en-US'),
          fmt(q.sweepSec),
          fmt(q.expiredPerSec),
        ]),
      ),
    );
    out.push('');
  }

  if (r.workers.length) {
    out.push('## 6. Workers on PostgreSQL');
    out.push('');
    out.push(
      'Approved threads with a ready resume job each; worker processes (children of the benchmark) drain them: reload the checkpoint, run the refund once through the ledger, call the model, finish the turn.',
    );
    out.push('');
    out.push(
      table(
        ['worker processes', 'jobs', 'drain (s)', 'jobs/s', 'executed', 'double executions', 'threads completed'],
        r.workers.map((w) => [
          String(w.processes),
          w.jobs.toLocaleString('en-US'),
          fmt(w.drainSec),
          fmt(w.jobsPerSec),
          w.executed.toLocaleString('en-US'),
          String(w.doubleExecutions),
          w.completedThreads.toLocaleString('en-US'),
        ]),
      ),
    );
    out.push('');
  }

  if (r.fleet?.length) {
    const fleet = r.fleet;
    out.push('## 7. A fleet of agents');
    out.push('');
    out.push(
      `${fleet[0]!.agents} agents in flight against one database, every turn on a fresh thread and none pausing (the refund is \`auto\`): the load of a fleet making auto-tier calls. "vs LangGraph.js" compares turns/s with LangGraph.js's checkpointer on the same backend.`,
    );
    out.push('');
    const peer = (f: FleetRun) => fleet.find((x) => x.backend === f.backend && x.label.startsWith('LangGraph'));
    out.push(
      table(
        [
          'participant',
          'durability',
          'in flight',
          'turns/s',
          'model steps/s',
          'turn p50 / p99 (ms)',
          'vs LangGraph.js',
        ],
        fleet.map((f) => [
          f.label,
          f.persistence,
          String(f.agents),
          fmt(f.turnsPerSec),
          fmt(f.stepsPerSec),
          `${ms(f.turnMs.p50)} / ${ms(f.turnMs.p99)}`,
          f.label.startsWith('LangGraph') ? '' : ratio(f.turnsPerSec, peer(f)?.turnsPerSec),
        ]),
      ),
    );
    out.push('');
  }
  out.push(...mcpSection(r));
  out.push(...oversightSection(r));
  return out.join('\n');
}

/** Markers of the generated part of README.md and docs/performance.md (`npm run bench -- --update-docs`). */
export const DOCS_START =
  '<!-- bench:start (generated by `npm run bench -- --update-docs`; edit bench/lib/report.ts, not this) -->';
export const DOCS_END = '<!-- bench:end -->';

/**
 * The summary the README and docs/performance.md show: machine, cycles, the other suites in brief,
 * targets. `compact` (the README) leaves out the synchronous=NORMAL repeats.
 */
export function docsSection(r: Results, compact = false): string {
  const keepCycle = (c: CycleRun) => !compact || !c.durability.includes('NORMAL');
  const keepTarget = (t: Target) => !compact || !t.target.includes('NORMAL');
  const out: string[] = [];
  out.push(
    `Taken ${r.meta.startedAt.slice(0, 10)} with \`${r.meta.command}\` on ${machineLine(r)} (load average ${fmt(r.meta.loadAverage.start)} → ${fmt(r.meta.loadAverage.end)}). Full tables: \`bench/results/latest.md\`.`,
  );
  // Suites rerun later and merged in are said with their date: a table must not pass for the first run's.
  for (const m of r.meta.merged ?? [])
    out.push(
      '',
      `Rerun ${m.at.slice(0, 16).replace('T', ' ')} UTC and merged in: ${m.suites.join(', ')} (load average ${fmt(m.loadAverage.start)} → ${fmt(m.loadAverage.end)}).`,
    );
  out.push('');
  out.push(headline(r, keepCycle));
  out.push('');
  const rows: string[][] = [];
  for (const s of r.storage) {
    const p = s.points[s.points.length - 1];
    if (p) rows.push([`Storage after ${p.turn} turns, × final state`, s.label, `${fmt(p.multiple)}×`]);
  }
  for (const s of r.steps)
    rows.push(['Step without a pause (ms, mean)', `${s.label} (${s.persistence})`, ms(s.perStepMs)]);
  for (const h of r.http)
    rows.push([
      'Decisions over HTTP (16 clients)',
      h.label,
      `${fmt(h.decisionsPerSec)}/s, p99 ${ms(h.latencyMs.p99)} ms, ${h.doubleExecutions} double executions`,
    ]);
  for (const q of r.queue)
    rows.push([
      `Queue first page, ${q.pending.toLocaleString('en-US')} pending (p99, worst query)`,
      q.label,
      `${ms(Math.max(...q.pages.map((p) => p.latencyMs.p99)))} ms; sweeper ${fmt(q.expiredPerSec)} expired/s`,
    ]);
  for (const f of r.fleet ?? [])
    rows.push([
      `Fleet: ${f.agents} agents in flight, no pauses (turns/s)`,
      `${f.label} (${f.persistence})`,
      `${fmt(f.turnsPerSec)}, turn p99 ${ms(f.turnMs.p99)} ms`,
    ]);
  for (const w of r.workers)
    rows.push([
      `Drain ${w.jobs.toLocaleString('en-US')} resume jobs`,
      `${w.processes} worker process${w.processes > 1 ? 'es' : ''} (PostgreSQL)`,
      `${fmt(w.drainSec)} s (${fmt(w.jobsPerSec)}/s), ${w.doubleExecutions} double executions`,
    ]);
  if (rows.length) {
    out.push(table(['measure', 'participant', 'result'], rows));
    out.push('');
  }
  if (!compact && r.mcp?.length) {
    // Measured with the run, or rerun later and merged in: say when, and under what load.
    const rerun = [...(r.meta.merged ?? [])].reverse().find((m) => m.suites.includes('mcp'));
    const when = rerun
      ? `rerun ${rerun.at.slice(0, 16).replace('T', ' ')} UTC, load average ${fmt(rerun.loadAverage.start)} → ${fmt(rerun.loadAverage.end)}`
      : 'in the same run';
    out.push(
      `MCP gateway overhead (\`interlock mcp\` over stdio in front of server-everything's \`echo\`, an \`auto\` call, interleaved with the server alone and a bare SDK proxy, ${when}; ${mcpWorkLine(r)} per call):`,
    );
    out.push('');
    out.push(mcpTable(r));
    out.push('');
  }
  out.push(targetsTable(r, keepTarget));
  if (compact && r.cycles.some((c) => !keepCycle(c)))
    out.push('', 'The same with SQLite `synchronous=NORMAL` on every side: `bench/results/latest.md`.');
  if (r.skipped.length) {
    out.push('');
    for (const s of r.skipped) out.push(`- Not measured: ${s.what} — ${s.why}`);
  }
  return out.join('\n');
}

/** `text` with the part between the markers replaced; unchanged if the markers are missing. */
export function replaceDocsSection(text: string, section: string): string {
  const a = text.indexOf(DOCS_START);
  const b = text.indexOf(DOCS_END);
  if (a < 0 || b < a) return text;
  return `${text.slice(0, a + DOCS_START.length)}\n${section}\n${text.slice(b)}`;
}
