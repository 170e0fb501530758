import type { ApprovalRequest } from '../core/index.ts';
import type { EngineContext } from './context.ts';
import { oversightFigures } from './oversight.ts';
import { median, requestsIn } from './window.ts';
import type { QueueFlow, RequestFigures, Rollup, TierRollup, ToolRollup } from './rollup-types.ts';

export type * from './rollup-types.ts';

const rate = (n: number, d: number) => (d ? n / d : null);

/**
 * Who asked for a request: the agent path of a tree (`support/refunds`), else the proposing agent's
 * name. An edit's follow-up request keeps the path, or is counted for the agent of the thread's requests.
 */
export function agentOf(r: ApprovalRequest): string {
  const path = r.context.agentPath;
  if (Array.isArray(path) && path.length) return path.map(String).join('/');
  return r.proposer.replace(/^(agent|graph):/, '');
}

/** Decision figures of a group of requests; `ran` counts the group's calls that ran without a person. */
export function figures(reqs: readonly ApprovalRequest[], ran: number): RequestFigures {
  const by = (t: string) => reqs.filter((r) => r.resolution?.type === t).length;
  const approved = by('approve');
  const edited = by('edit');
  const rejected = by('reject');
  const responded = by('respond');
  const decided = approved + edited + rejected + responded;
  const minutes = reqs
    .filter((r) => r.resolution && r.resolution.type !== 'timeout' && r.resolvedAt)
    .map((r) => (r.resolvedAt! - r.createdAt) / 60_000);
  // A call pauses once: requests an edit or a timeout handed over to are the same call.
  const paused = reqs.filter((r) => r.parentId === null).length;
  return {
    requests: reqs.length,
    pending: reqs.filter((r) => r.status === 'pending').length,
    approved,
    edited,
    rejected,
    responded,
    expired: by('timeout'),
    approvalRate: rate(approved + edited, decided),
    correctionRate: rate(edited, decided),
    medianMinutesToDecision: median(minutes),
    calls: ran + paused,
    interruptRate: rate(paused, ran + paused),
  };
}

function groupBy<T>(xs: readonly T[], key: (x: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const x of xs) m.set(key(x), [...(m.get(key(x)) ?? []), x]);
  return m;
}

/** Opened and resolved per interval and role, among the requests created in the window. */
function queueFlows(reqs: readonly ApprovalRequest[], since: number, until: number, intervalMs: number): QueueFlow[] {
  const flows = new Map<string, QueueFlow>();
  const at = (t: number) => since + Math.floor((t - since) / intervalMs) * intervalMs;
  const flow = (role: string, t: number) => {
    const k = `${role}\u0000${at(t)}`;
    let f = flows.get(k);
    if (!f) flows.set(k, (f = { role, at: at(t), opened: 0, resolved: 0 }));
    return f;
  };
  for (const r of reqs) {
    flow(r.role, r.createdAt).opened++;
    if (r.resolvedAt !== null && r.resolvedAt < until) flow(r.role, r.resolvedAt).resolved++;
  }
  return [...flows.values()].sort((a, b) => a.at - b.at || a.role.localeCompare(b.role));
}

/**
 * The oversight roll-up for requests created in [since, until): per tool and per tier, decisions,
 * time to decision, calls and interrupt rate; per agent; autonomous completions; the queue's flow;
 * resume success. Planted checks are left out of all of it; with `oversight` (operators), their
 * yield and each reviewer's pace are added. One query path for both backends.
 */
export async function rollup(
  ctx: EngineContext,
  since: number,
  until = ctx.now(),
  opts: { roles?: readonly string[]; oversight?: boolean; fastSeconds?: number } = {},
): Promise<Rollup> {
  // `roles`: only requests of these roles (what a reviewer may see), the same filter as the queue.
  const reqs = await requestsIn(ctx, since, until, { planted: false, ...(opts.roles ? { roles: opts.roles } : {}) });
  const [autoCalls, finished, jobs] = await Promise.all([
    ctx.store.countAutoCalls(since, until),
    ctx.store.countFinishedThreads(since, until),
    ctx.store.countJobs('resume', since),
  ]);
  const ranBy = (pick: (c: { tool: string; tier: string }) => string, key: string) =>
    autoCalls.filter((c) => pick(c) === key).reduce((n, c) => n + c.count, 0);

  const byTool = groupBy(reqs, (r) => r.tool);
  // A reviewer's view counts only the tools they review; an operator's sees the calls that never paused too.
  if (!opts.roles) for (const c of autoCalls) if (!byTool.has(c.tool)) byTool.set(c.tool, []);
  const tools: ToolRollup[] = [...byTool.entries()].map(([tool, rs]) => ({
    tool,
    ...figures(
      rs,
      ranBy((c) => c.tool, tool),
    ),
  }));
  tools.sort((a, b) => b.requests - a.requests || b.calls - a.calls || a.tool.localeCompare(b.tool));

  const byTier = groupBy(reqs, (r) => r.tier);
  if (!opts.roles) for (const c of autoCalls) if (!byTier.has(c.tier)) byTier.set(c.tier, []);
  const order = ['auto', 'notify', 'approve', 'escalate', 'block'];
  const tiers: TierRollup[] = [...byTier.entries()]
    .map(([tier, rs]) => ({
      tier,
      ...figures(
        rs,
        ranBy((c) => c.tier, tier),
      ),
    }))
    .sort((a, b) => order.indexOf(a.tier) - order.indexOf(b.tier));

  const agents = [...groupBy(reqs, agentOf).entries()]
    .map(([agent, rs]) => ({ agent, requests: rs.length, pending: rs.filter((r) => r.status === 'pending').length }))
    .sort((a, b) => b.requests - a.requests || a.agent.localeCompare(b.agent));

  const intervalMs = until - since <= 2 * 86_400_000 ? 3_600_000 : 86_400_000;
  const finishedJobs = jobs.done + jobs.dead;
  return {
    since,
    until,
    tools,
    tiers,
    agents,
    threads: {
      finished: finished.finished,
      autonomous: finished.withoutPerson,
      autonomousRate: rate(finished.withoutPerson, finished.finished),
    },
    queue: { intervalMs, flows: queueFlows(reqs, since, until, intervalMs) },
    resume: {
      done: jobs.done,
      dead: jobs.dead,
      pending: jobs.ready + jobs.running,
      successRate: finishedJobs ? jobs.done / finishedJobs : null,
    },
    ...(opts.oversight ? { oversight: await oversightFigures(ctx, since, until, reqs, opts.fastSeconds ?? 10) } : {}),
  };
}
