import type { ApprovalRequest } from '../core/index.ts';
import type { EngineContext } from './context.ts';
import { median, requestsIn } from './window.ts';
import type { PlantedFigures, ReviewerPace, YieldRow } from './rollup-types.ts';

/** Where a planted check ended: the request its chain (an edit that needed a new request, an escalation) stands at. */
function standing(r: ApprovalRequest, byId: Map<string, ApprovalRequest>): ApprovalRequest {
  let at = r;
  for (let hops = 0; at.status === 'superseded' && at.supersededBy && hops < 20; hops++) {
    const next = byId.get(at.supersededBy);
    if (!next) break;
    at = next;
  }
  return at;
}

function yieldRows(entries: Array<{ key: string; caught: boolean | null }>): YieldRow[] {
  const rows = new Map<string, YieldRow>();
  for (const e of entries) {
    const row = rows.get(e.key) ?? { key: e.key, planted: 0, caught: 0, missed: 0, yield: null };
    row.planted++;
    if (e.caught === true) row.caught++;
    if (e.caught === false) row.missed++;
    row.yield = row.caught + row.missed ? row.caught / (row.caught + row.missed) : null;
    rows.set(e.key, row);
  }
  return [...rows.values()].sort((a, b) => b.planted - a.planted || a.key.localeCompare(b.key));
}

/**
 * Planted checks over [since, until) and each reviewer's pace: what only operators see. A check is
 * caught when a reviewer rejected it or answered instead; missed when approved or edited (every
 * approver of a quorum missed it); a timeout is neither.
 */
export async function oversightFigures(
  ctx: EngineContext,
  since: number,
  until: number,
  real: readonly ApprovalRequest[],
  fastSeconds: number,
): Promise<{ planted: PlantedFigures; reviewers: ReviewerPace[] }> {
  const all = await requestsIn(ctx, since, until, { planted: true });
  const byId = new Map(all.map((r) => [r.id, r]));
  const checks = all.filter((r) => r.parentId === null);
  const perCheck: Array<{ r: ApprovalRequest; caught: boolean | null }> = [];
  const perReviewer: Array<{ key: string; caught: boolean | null }> = [];
  const plantedMinutes: number[] = [];
  for (const r of checks) {
    const end = standing(r, byId);
    const t = end.resolution?.type;
    const caught = t === 'reject' || t === 'respond' ? true : t === 'approve' || t === 'edit' ? false : null;
    perCheck.push({ r, caught });
    if (caught !== null && end.resolvedAt) plantedMinutes.push((end.resolvedAt - r.createdAt) / 60_000);
    if (caught === true) perReviewer.push({ key: end.resolution!.by, caught });
    if (caught === false) {
      const approvers = new Set(await ctx.store.listVoters(end.id));
      approvers.add(end.resolution!.by);
      for (const who of approvers) perReviewer.push({ key: who, caught });
    }
  }
  const caught = perCheck.filter((c) => c.caught === true).length;
  const decided = perCheck.filter((c) => c.caught !== null).length;
  const realMinutes = real
    .filter((r) => r.resolution && r.resolution.type !== 'timeout' && r.resolvedAt)
    .map((r) => (r.resolvedAt! - r.createdAt) / 60_000);

  const timings = (await ctx.store.listApprovalTimings(since, until)).filter((t) => !t.planted);
  const byReviewer = new Map<string, typeof timings>();
  for (const t of timings) byReviewer.set(t.reviewer, [...(byReviewer.get(t.reviewer) ?? []), t]);
  const reviewers: ReviewerPace[] = [...byReviewer.entries()]
    .map(([reviewer, ts]) => {
      const seconds = ts.filter((t) => t.openedAt !== null).map((t) => (t.decidedAt - t.openedAt!) / 1000);
      return {
        reviewer,
        approvals: ts.length,
        timed: seconds.length,
        medianSecondsToApprove: median(seconds),
        fastShare: seconds.length ? seconds.filter((s) => s < fastSeconds).length / seconds.length : null,
        fastSeconds,
      };
    })
    .sort((a, b) => b.approvals - a.approvals || a.reviewer.localeCompare(b.reviewer));

  return {
    planted: {
      placed: checks.length,
      decided,
      caught,
      yield: decided ? caught / decided : null,
      byReviewer: yieldRows(perReviewer),
      byRole: yieldRows(perCheck.map((c) => ({ key: c.r.role, caught: c.caught }))),
      byRule: yieldRows(perCheck.map((c) => ({ key: `${c.r.tool}:${c.r.ruleId}`, caught: c.caught }))),
      byTier: yieldRows(perCheck.map((c) => ({ key: c.r.tier, caught: c.caught }))),
      medianMinutesToDecision: { planted: median(plantedMinutes), real: median(realMinutes) },
    },
    reviewers,
  };
}
