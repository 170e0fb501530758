import { applyTriage, isInterrupting, type PolicyContext, type ToolCall, type Verdict } from '../core/index.ts';
import type { EngineContext } from './context.ts';

/** Where the gate's call comes from. */
export interface GateContext {
  threadId?: string;
  proposer?: string;
  /** Application facts the rules may read (customer tier, channel…). */
  app?: Record<string, unknown>;
  /**
   * The caller knows the thread has no trust grant (its run followed every decision made in it):
   * the gate does not read the grants. A grant it could not know of yet is missed, and the call
   * asks a person as it would have before the grant.
   */
  noTrustGrants?: boolean;
  /**
   * Trust grants made before this time (epoch ms) count for nothing: a grant scoped to a session or
   * a time box (an MCP gateway's client session), where the thread outlives them.
   */
  trustSince?: number;
}

/** A verdict, plus the trust grant that lowered it to `auto`, if any. */
export interface GateVerdict extends Verdict {
  trustedBy?: { reviewer: string; requestId: string; at: number; originalTier: Verdict['tier'] };
}

/**
 * Decide what a tool call needs. Reads the store only for what the tool's
 * rules declare (aggregates) and, for calls that would pause, a thread's trust
 * grant; a call of a tool without aggregates that runs automatically touches
 * no database at all.
 */
export async function gate(ctx: EngineContext, call: ToolCall, g: GateContext = {}): Promise<GateVerdict> {
  const now = ctx.now();
  const specs = ctx.policy.aggregatesFor(call.tool);
  const aggregates: Record<string, number> = {};
  for (const [name, spec] of Object.entries(specs)) {
    aggregates[name] = await ctx.store.aggregate({
      tool: spec.tool ?? call.tool,
      fn: spec.fn,
      ...(spec.field === undefined ? {} : { field: spec.field }),
      ...(spec.groupBy === undefined
        ? {}
        : { groupBy: { field: spec.groupBy, value: call.args[spec.groupBy] ?? null } }),
      since: now - spec.windowMs,
      outcome: spec.outcome ?? 'executed',
    });
  }
  const pctx: PolicyContext = {
    now: new Date(now),
    ...(g.threadId === undefined ? {} : { threadId: g.threadId }),
    ...(g.proposer === undefined ? {} : { proposer: g.proposer }),
    app: g.app ?? {},
    aggregates,
  };
  let verdict: Verdict = ctx.policy.evaluate(call, pctx);
  if (ctx.policy.triage && verdict.tier !== 'block') {
    verdict = applyTriage(verdict, await ctx.policy.triage(call, verdict, pctx), ctx.fallbackRole);
  }
  // "Approve and trust": a reviewer allowed this rule for the rest of the thread.
  if (
    verdict.tier === 'approve' &&
    verdict.trustable &&
    g.threadId &&
    !g.noTrustGrants &&
    isInterrupting(verdict.tier)
  ) {
    const grant = await ctx.store.getTrust(g.threadId, call.tool, verdict.ruleId);
    if (grant && grant.createdAt >= (g.trustSince ?? 0)) {
      return {
        ...verdict,
        tier: 'auto',
        reason: `trusted for this thread by ${grant.reviewer} (request ${grant.requestId}); rule: ${verdict.reason}`,
        trustedBy: {
          reviewer: grant.reviewer,
          requestId: grant.requestId,
          at: grant.createdAt,
          originalTier: verdict.tier,
        },
      };
    }
  }
  return verdict;
}
