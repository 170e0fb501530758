import type { ApprovalRequest } from '../core/index.ts';
import type { EngineContext } from './context.ts';
import type { Rollup, ToolRollup } from './rollup-types.ts';

export type { Rollup, ToolRollup } from './rollup-types.ts';

function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * Who asked for a request: the agent path of a tree (`support/refunds`), else the proposing agent's
 * name. An edit's follow-up request keeps the path, or is counted for the agent of the thread's requests.
 */
export function agentOf(r: ApprovalRequest): string {
  const path = r.context.agentPath;
  if (Array.isArray(path) && path.length) return path.map(String).join('/');
  return r.proposer.replace(/^(agent|graph):/, '');
}

/** Interrupts, decisions and time to decision per tool for requests created in [since, until). */
export async function rollup(
  ctx: EngineContext,
  since: number,
  until = ctx.now(),
  opts: { roles?: readonly string[] } = {},
): Promise<Rollup> {
  const byTool = new Map<string, ApprovalRequest[]>();
  let cursor: string | undefined;
  // Newest first, stopping at the window's start: the cost follows the window, not the table.
  for (;;) {
    // `roles`: only requests of these roles (what a reviewer may see), the same filter as the queue.
    const page = await ctx.store.listRequests({
      order: 'newest',
      limit: 500,
      ...(opts.roles ? { roles: [...opts.roles] } : {}),
      ...(cursor ? { cursor } : {}),
    });
    let done = false;
    for (const r of page.items) {
      if (r.createdAt < since) {
        done = true;
        break;
      }
      if (r.createdAt >= until) continue;
      const list = byTool.get(r.tool) ?? [];
      list.push(r);
      byTool.set(r.tool, list);
    }
    if (done || !page.nextCursor) break;
    cursor = page.nextCursor;
  }
  const tools: ToolRollup[] = [...byTool.entries()].map(([tool, reqs]) => {
    const by = (t: string) => reqs.filter((r) => r.resolution?.type === t).length;
    const approved = by('approve');
    const edited = by('edit');
    const rejected = by('reject');
    const responded = by('respond');
    const decided = approved + edited + rejected + responded;
    const minutes = reqs
      .filter((r) => r.resolution && r.resolution.type !== 'timeout' && r.resolvedAt)
      .map((r) => (r.resolvedAt! - r.createdAt) / 60_000);
    return {
      tool,
      requests: reqs.length,
      pending: reqs.filter((r) => r.status === 'pending').length,
      approved,
      edited,
      rejected,
      responded,
      expired: by('timeout'),
      approvalRate: decided ? (approved + edited) / decided : null,
      correctionRate: decided ? edited / decided : null,
      medianMinutesToDecision: median(minutes),
    };
  });
  tools.sort((a, b) => b.requests - a.requests || a.tool.localeCompare(b.tool));
  const byAgent = new Map<string, { agent: string; requests: number; pending: number }>();
  for (const reqs of byTool.values())
    for (const r of reqs) {
      const agent = agentOf(r);
      const a = byAgent.get(agent) ?? { agent, requests: 0, pending: 0 };
      a.requests++;
      if (r.status === 'pending') a.pending++;
      byAgent.set(agent, a);
    }
  const agents = [...byAgent.values()].sort((a, b) => b.requests - a.requests || a.agent.localeCompare(b.agent));
  const jobs = await ctx.store.countJobs('resume', since);
  const finished = jobs.done + jobs.dead;
  return {
    since,
    until,
    tools,
    agents,
    resume: {
      done: jobs.done,
      dead: jobs.dead,
      pending: jobs.ready + jobs.running,
      successRate: finished ? jobs.done / finished : null,
    },
  };
}
