// Print the figures of the last runs as the Markdown tables of docs/reliability.md:
//   node test/reliability/report.ts [results folder, default test/reliability/results]
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

type Json = Record<string, unknown>;
type Run = {
  at: string;
  faults: number;
  starts: number;
  durationMs: number;
  seed: number;
  figures: Record<string, number> & { requestsByStatus: Record<string, number> };
  traffic: Record<string, number> & {
    decisionsRefused: Record<string, number>;
    latencyMs: { thread: { p50: string; p99: string }; decision: { p50: string; p99: string } };
  };
  memory?: {
    rss: { startMb: number; peakMb: number; endMb: number; lastHalfSlopeMbPerMin: number };
    heapAfterGc: { earlyMb: number; lateMb: number; growthMb: number };
  };
  seconds?: number;
  rate?: number;
};

const dir = process.argv[2] ?? join(import.meta.dirname, 'results');
const read = <T = Json>(name: string): T | undefined =>
  existsSync(join(dir, `${name}.json`))
    ? (JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as T)
    : undefined;
const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);

function runRow(label: string, r: Run | undefined): string {
  if (!r) return `| ${label} | (no run) |||||||||`;
  const f = r.figures;
  const t = r.traffic;
  return `| ${label} | ${r.faults} | ${t.threadsAccepted} (${t.threadsUnknown} unknown) | ${f.requests} | ${t.decisionsAccepted} acknowledged, ${f.decisionsRecorded} recorded, ${sum(t.decisionsRefused)} refused | ${f.timeoutDefaultsApplied} | ${f.executions} (${f.autoExecutions} auto), ${f.executionsTakenOver} taken over, ${f.paymentRetriesDeduped} retries deduped | ${f.doubleExecutions} | ${f.executedWithoutDecision} | ${f.lost} | ${f.auditEvents} |`;
}

const header =
  '| run | faults | threads acknowledged | requests | decisions | timeout defaults | executions | double executions | executed without a decision | lost | audit events (verify ok) |\n|---|---|---|---|---|---|---|---|---|---|---|';
console.log(header);
for (const b of ['sqlite', 'postgres']) console.log(runRow(`SIGKILL, ${b}`, read<Run>(`crash-${b}`)));
console.log(runRow('PostgreSQL restarts', read<Run>('pg-restart')));
for (const b of ['sqlite', 'postgres']) {
  const r = read<Run>(`load-${b}`);
  console.log(runRow(`load ${r?.seconds ?? '?'} s at ${r?.rate ?? '?'}/s, ${b}`, r));
}
console.log('');
console.log(
  '| load run | RSS start → peak → end (MB) | RSS slope, 2nd half (MB/min) | heap after GC, 1st → 2nd half (MB) | thread start p50/p99 (ms) | decision p50/p99 (ms) |\n|---|---|---|---|---|---|',
);
for (const b of ['sqlite', 'postgres']) {
  const r = read<Run>(`load-${b}`);
  if (!r?.memory) continue;
  const m = r.memory;
  const l = r.traffic.latencyMs;
  console.log(
    `| ${b}, ${r.seconds} s | ${m.rss.startMb} → ${m.rss.peakMb} → ${m.rss.endMb} | ${m.rss.lastHalfSlopeMbPerMin} | ${m.heapAfterGc.earlyMb} → ${m.heapAfterGc.lateMb} (${m.heapAfterGc.growthMb >= 0 ? '+' : ''}${m.heapAfterGc.growthMb}) | ${l.thread.p50}/${l.thread.p99} | ${l.decision.p50}/${l.decision.p99} |`,
  );
}
console.log('');
const tried = (name: string) => read<{ tried: number }>(name)?.tried ?? 0;
const decisions = ['sqlite', 'postgres'].map((b) => tried(`bad-decisions-${b}`));
const text = ['sqlite', 'postgres'].map((b) => tried(`untrusted-text-${b}`));
const tamper = ['sqlite', 'postgres'].map((b) => tried(`audit-tamper-${b}`));
console.log('| bad input and tampering | tried (sqlite + postgres) | outcome |\n|---|---|---|');
console.log(
  `| refused decisions (generated + hand-written) | ${decisions.join(' + ')} | every one a 4xx with a known code; database unchanged |`,
);
console.log(
  `| untrusted text round trips | ${text.join(' + ')} | intact, trusted fields unchanged, inert in e-mail and Slack |`,
);
console.log(
  `| invalid policies and configs | ${tried('bad-config')} | ConfigError naming the problem; serve exits 3 |`,
);
console.log(`| audit tampering | ${tamper.join(' + ')} | detected, first broken event named |`);

// Faults beyond kills: one row per fault run, the columns docs/reliability.md keeps for them.
type FaultRun = Run & {
  auditVerify: { exitCode: number | null };
  violations: string[];
  holeMs?: number;
  stallMs?: number;
  stepMs?: number;
  fillMb?: number;
  load?: string;
  health?: { probes: number; slowestMs: number; failures: string[] };
};
const codes = (o: Record<string, number> | undefined) =>
  Object.entries(o ?? {})
    .map(([k, v]) => `${k} ×${v}`)
    .join(', ');
function faultRow(label: string, duration: (r: FaultRun) => string, r: FaultRun | undefined): string {
  if (!r) return `| ${label} | (no run) |||||||||`;
  const f = r.figures;
  const t = r.traffic;
  const stranded = (f.threads ?? 0) - (f.threadsCompleted ?? 0) - (f.threadsWaiting ?? 0);
  const saw = [
    `${t.threadsUnknown ?? 0} thread start(s) answered 5xx (coded 503) or cut, each looked up after`,
    codes(t.threadErrors as unknown as Record<string, number>),
    codes(t.decisionsRefused) ? `decisions: ${codes(t.decisionsRefused)}` : '',
    r.health ? `/healthz slowest ${r.health.slowestMs} ms of ${r.health.probes}` : '',
  ]
    .filter(Boolean)
    .join('; ');
  const recovery =
    r.starts === undefined ? 'by itself' : r.starts <= 1 ? 'by itself, no restart' : `${r.starts - 1} restart(s)`;
  return `| ${label} | ${duration(r)} | ${r.load ?? `${r.rate ?? 6} threads/s + decisions`} | ${t.threadsAccepted} threads, ${t.decisionsAccepted} decisions | ${f.lost} | ${f.doubleExecutions} | ${stranded} | ${r.auditVerify.exitCode === 0 ? 'ok' : `exit ${String(r.auditVerify.exitCode)}`} | ${r.violations.length ? `${r.violations.length} violation(s)` : recovery} | ${saw} |`;
}
const s = (ms: number | undefined) => (ms === undefined ? '?' : `${Math.round(ms / 1000)} s`);
console.log('');
console.log(
  '| fault | duration | load | acknowledged | lost | double | stranded | audit verify | recovery | what clients saw |\n|---|---|---|---|---|---|---|---|---|---|',
);
console.log(faultRow('PostgreSQL blackholed', (r) => s(r.holeMs), read<FaultRun>('pg-blackhole')));
for (const b of ['sqlite', 'postgres'])
  console.log(faultRow(`wall clock stepped back, ${b}`, (r) => `−${s(r.stepMs)}`, read<FaultRun>(`clock-step-${b}`)));
console.log(
  faultRow('SQLite write lock held by another process', (r) => s(r.stallMs), read<FaultRun>('sqlite-write-lock')),
);
console.log(faultRow('SQLite disk stalled (fsfreeze)', (r) => s(r.stallMs), read<FaultRun>('sqlite-disk-stall')));
console.log(faultRow('SQLite disk full (tmpfs)', (r) => s(r.stallMs), read<FaultRun>('sqlite-disk-full')));
for (const [name, label] of [
  ['replicas-kill', 'three replicas, one at a time SIGKILLed and restarted'],
  ['replicas-skew', 'three replicas, one clock +1 h'],
] as const)
  console.log(faultRow(label, (r) => s(r.durationMs), read<FaultRun>(name)));
