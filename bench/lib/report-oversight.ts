/**
 * Suite 9 in the results: the cost of oversight per adapter — each framework with its own persistence
 * and approval beside the same agent through Interlock's adapter, measured in the same interleaved
 * rounds — its table, its goals, and the section of docs/performance.md it generates.
 */
import type { OversightMode, OversightRun } from '../suites/oversight.ts';
import { fmt } from './stats.ts';

/** What this part of the report reads from the results. */
export interface OversightResults {
  oversight?: OversightRun[];
}

interface Target {
  target: string;
  measured: string;
  met: boolean | null;
}

/** One framework, backend, operation and concurrency: the framework alone and with Interlock. */
export interface OversightCell {
  own: OversightRun;
  interlock: OversightRun;
  /** Interlock's time per operation over the framework's (the framework's throughput over Interlock's). */
  cost: number;
  /** The issue's goal for this operation: ≤ 1.2× for an auto turn, < 1× (faster) for a gated cycle. */
  goal: { text: string; met: boolean };
}

const backendName = (b: string) => (b === 'sqlite' ? 'SQLite' : 'PostgreSQL');
const modeName = (m: OversightMode) => (m === 'auto' ? 'auto-tier turn' : 'gated cycle');
const where = (c: OversightCell) =>
  `${c.own.framework}, ${backendName(c.own.backend)}, ${c.own.concurrency === 1 ? 'sequential' : `${c.own.concurrency} in flight`}`;

/** The measured pairs, in the order they ran. */
export function oversightCells(r: OversightResults): OversightCell[] {
  const runs = r.oversight ?? [];
  const out: OversightCell[] = [];
  for (const own of runs.filter((x) => x.side === 'framework')) {
    const interlock = runs.find(
      (x) =>
        x.side === 'interlock' &&
        x.framework === own.framework &&
        x.backend === own.backend &&
        x.mode === own.mode &&
        x.concurrency === own.concurrency,
    );
    if (!interlock) continue;
    const cost = own.opsPerSec / interlock.opsPerSec;
    out.push({
      own,
      interlock,
      cost,
      goal: own.mode === 'auto' ? { text: '≤ 1.2×', met: cost <= 1.2 } : { text: '< 1×', met: cost < 1 },
    });
  }
  return out;
}

/** The issue's two goals, for every adapter, backend and concurrency. */
export function oversightTargets(r: OversightResults): Target[] {
  return oversightCells(r).map((c) => ({
    target:
      c.own.mode === 'auto'
        ? `Auto-tier turn through the adapter ≤ 1.2× the framework with its own persistence (${where(c)})`
        : `Gated cycle through the adapter faster than the framework's own pause/resume (${where(c)})`,
    measured: `${fmt(c.cost)}×`,
    met: c.goal.met,
  }));
}

function table(head: string[], rows: string[][]): string {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((x) => `| ${x.join(' | ')} |`),
  ].join('\n');
}

const perOp = (x: OversightRun) =>
  x.commitsPerOp === null
    ? '—'
    : fmt(x.commitsPerOp) + (x.syncsPerOp === undefined ? '' : ` (${fmt(x.syncsPerOp)} synced)`);
const lat = (x: OversightRun) => `${fmt(x.latencyMs.p50)} / ${fmt(x.latencyMs.p99)}`;

/** The "Cost of oversight, per adapter" table: one row per adapter, backend, operation and concurrency. */
export function oversightTable(r: OversightResults): string {
  return table(
    [
      'adapter',
      'backend',
      'operation',
      'in flight',
      'framework alone: /s',
      'p50 / p99 ms',
      'with Interlock: /s',
      'p50 / p99 ms',
      'transactions per op: framework / Interlock',
      'Interlock / framework',
      'goal',
      '',
    ],
    oversightCells(r).map((c) => [
      c.own.framework,
      backendName(c.own.backend),
      modeName(c.own.mode),
      String(c.own.concurrency),
      fmt(c.own.opsPerSec),
      lat(c.own),
      fmt(c.interlock.opsPerSec),
      lat(c.interlock),
      `${perOp(c.own)} / ${perOp(c.interlock)}`,
      `${fmt(c.cost)}×`,
      c.goal.text,
      c.goal.met ? '✅ met' : '❌ missed',
    ]),
  );
}

/** Who each side is, one line per adapter. */
function sidesLine(r: OversightResults): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const c of oversightCells(r)) {
    const key = `${c.own.framework}·${c.own.backend}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(
      `- ${backendName(c.own.backend)}: ${c.own.label} — against — ${c.interlock.label} (${c.own.durability} on both)`,
    );
  }
  return out;
}

const WHAT =
  "Each framework with its own persistence and its own approval against the same agent with Interlock's adapter, in the same rounds (interleaved, alternating which side goes first). An **auto-tier turn**: the model proposes a $100 refund the policy lets run alone, the refund runs, the model answers (two model steps, one tool call). A **gated cycle**: the model proposes an $850 refund, the run pauses and is persisted, a reviewer approves, the run resumes, the refund runs once and the model answers. Each operation returns once its state is committed; threads run five turns each. The frameworks' own offline models, so no model latency. \"Interlock / framework\" is Interlock's time per operation over the framework's (the framework's operations/s over Interlock's at the same concurrency); the goals: an auto-tier turn ≤ 1.2×, a gated cycle < 1× (faster than the framework's own). \"Transactions per op\" counts what each side adds to the framework: the application's write transactions to its table (its reads are single statements), and the transactions Interlock's store began (`store.stats`; on SQLite, in parentheses, how many syncs of the disk they came to: a run's lease commits without one, and transactions in flight together share one); LangGraph's checkpointers, which both LangChain sides keep, are not counted (—).";

/** Section 9 of bench/results/*.md. */
export function oversightSection(r: OversightResults): string[] {
  if (!r.oversight?.length) return [];
  return ['## 9. Cost of oversight, per adapter', '', WHAT, '', ...sidesLine(r), '', oversightTable(r), ''];
}

/** Markers of the generated "Cost of oversight" part of docs/performance.md. */
export const OVERSIGHT_START =
  '<!-- bench:oversight:start (generated by `npm run bench -- --only=oversight --update-docs`; edit bench/lib/report-oversight.ts, not this) -->';
export const OVERSIGHT_END = '<!-- bench:oversight:end -->';

/** The part of docs/performance.md between the oversight markers: when, how, on what load, the table. */
export function oversightDocsSection(
  r: OversightResults & {
    meta: { startedAt: string; command: string; quick: boolean; loadAverage: { start: number; end: number } };
  },
  machine: string,
): string {
  const met = oversightCells(r).filter((c) => c.goal.met).length;
  return [
    `Taken ${r.meta.startedAt.slice(0, 16).replace('T', ' ')} UTC with \`${r.meta.command}\`${r.meta.quick ? ' (reduced scale)' : ''} on ${machine} (load average ${fmt(r.meta.loadAverage.start)} → ${fmt(r.meta.loadAverage.end)}: other work shared the machine, so compare the ratios, which come from interleaved rounds, rather than absolute rates).`,
    '',
    WHAT,
    '',
    ...sidesLine(r),
    '',
    oversightTable(r),
    '',
    `Goals met: ${met} of ${oversightCells(r).length}.`,
  ].join('\n');
}

/** `text` with the part between `start` and `end` replaced by `section`; unchanged if a marker is missing. */
export function replaceBetween(text: string, start: string, end: string, section: string): string {
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a < 0 || b < a) return text;
  return `${text.slice(0, a + start.length)}\n${section}\n${text.slice(b)}`;
}
