/**
 * Suite 8 in the results: the MCP gateway's overhead against the server it fronts, measured in the
 * same interleaved rounds, and its targets.
 */
import type { McpRun, McpWork } from '../suites/mcp.ts';
import { fmt, ratio } from './stats.ts';

/** What this part of the report reads from the results. */
export interface McpResults {
  mcp?: McpRun[];
  mcpWork?: McpWork[];
}

interface Target {
  target: string;
  measured: string;
  met: boolean | null;
}

const directOf = (runs: readonly McpRun[], r: McpRun) =>
  runs.find((x) => x.backend === 'direct' && x.concurrency === r.concurrency);

/** The issue's two targets, on SQLite over stdio; PostgreSQL is reported beside them, without a target. */
export function mcpTargets(r: McpResults): Target[] {
  const runs = r.mcp ?? [];
  const out: Target[] = [];
  const seq = runs.find((x) => x.backend === 'sqlite' && x.concurrency === 1);
  const seqDirect = seq && directOf(runs, seq);
  if (seq && seqDirect) {
    const added = seq.latencyMs.p50 - seqDirect.latencyMs.p50;
    out.push({
      target: 'MCP auto call through the gateway adds ≤ 0.5 ms p50 (SQLite, stdio, one call at a time)',
      measured: `+${fmt(added)} ms (${fmt(seq.latencyMs.p50)} against ${fmt(seqDirect.latencyMs.p50)} ms direct)`,
      met: added <= 0.5,
    });
  }
  const par = runs.find((x) => x.backend === 'sqlite' && x.concurrency === 16);
  const parDirect = par && directOf(runs, par);
  if (par && parDirect)
    out.push({
      target: 'MCP auto calls through the gateway ≥ 0.5× direct throughput (SQLite, stdio, 16 in flight)',
      measured: ratio(par.callsPerSec, parDirect.callsPerSec),
      met: par.callsPerSec >= 0.5 * parDirect.callsPerSec,
    });
  return out;
}

function table(head: string[], rows: string[][]): string {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((x) => `| ${x.join(' | ')} |`),
  ].join('\n');
}

/** The "MCP gateway overhead" table: each participant beside the server alone at the same concurrency. */
export function mcpTable(r: McpResults): string {
  const runs = r.mcp ?? [];
  return table(
    ['participant', 'durability', 'in flight', 'calls/s', 'p50 / p99 ms', 'added p50 ms', 'vs direct'],
    runs.map((x) => {
      const d = directOf(runs, x);
      return [
        x.label,
        x.durability,
        String(x.concurrency),
        fmt(x.callsPerSec),
        `${fmt(x.latencyMs.p50)} / ${fmt(x.latencyMs.p99)}`,
        x.backend === 'direct' || !d ? '' : `+${fmt(x.latencyMs.p50 - d.latencyMs.p50)}`,
        x.backend === 'direct' ? '1×' : ratio(x.callsPerSec, d?.callsPerSec),
      ];
    }),
  );
}

/** The store's work per auto call through the gateway, one line. */
export function mcpWorkLine(r: McpResults): string {
  return (r.mcpWork ?? [])
    .map(
      (w) =>
        `${w.backend === 'sqlite' ? 'SQLite' : 'PostgreSQL'}: ${fmt(w.transactions)} transaction${w.transactions === 1 ? '' : 's'}, ${fmt(w.statements)} statements${w.roundTrips === null ? '' : `, ${fmt(w.roundTrips)} round trips`}`,
    )
    .join('; ');
}

/** Section 8 of bench/results/*.md. */
export function mcpSection(r: McpResults): string[] {
  if (!r.mcp?.length) return [];
  const out = ['## 8. The MCP gateway', ''];
  out.push(
    'An `auto` tool call (`echo` of the official `@modelcontextprotocol/server-everything`) made with the MCP SDK\'s client over stdio: straight to the server, through a bare SDK proxy (no policy, no store: what a second stdio process costs), and through `interlock mcp` on SQLite and on PostgreSQL. All of them run in the same rounds, interleaved, each in its own child process. "vs direct" compares calls/s with the server alone at the same concurrency.',
  );
  out.push('');
  out.push(mcpTable(r));
  out.push('');
  const work = mcpWorkLine(r);
  if (work) {
    out.push(
      `Work per auto call (sequential, counted with the gateway in process; a call without a client call id is recorded after it ran, in a commit shared with concurrent calls'): ${work}.`,
    );
    out.push('');
  }
  return out;
}
