import {
  AuditVerifier,
  type ChainHead,
  NotFoundError,
  type ApprovalRequest,
  type AuditEvent,
  type ChainVerification,
} from '../core/index.ts';
import type { ExecutionRow } from '../store/types.ts';
import type { EngineContext } from './context.ts';

/** Options of {@link verifyAudit}. */
export interface VerifyOptions {
  pageSize?: number;
  onProgress?: (checked: number, head: number) => void;
  /** Chain heads kept from an earlier verification (its `heads`): each chain must still hold them. */
  against?: readonly ChainHead[];
  /** How far an event's time may run back behind the one before it in its chain before it is listed in `findings` (default 1000 ms). */
  clockToleranceMs?: number;
}

/**
 * Walk the whole audit log in pages, checking each chain's links and comparing
 * its end with its recorded head. Names the first event that was changed,
 * removed, moved or reordered. Times that run backwards along a chain (a clock
 * step, skewed processes) are listed in `findings` and do not fail it.
 */
export async function verifyAudit(ctx: EngineContext, opts: VerifyOptions = {}): Promise<ChainVerification> {
  const pageSize = opts.pageSize ?? 5000;
  const heads = await ctx.store.getAuditHeads();
  const v = new AuditVerifier(
    heads,
    opts.against ?? [],
    opts.clockToleranceMs === undefined ? {} : { clockToleranceMs: opts.clockToleranceMs },
  );
  const total = heads.reduce((n, h) => n + h.seq, 0);
  let after = 0;
  let checked = 0;
  for (;;) {
    const page = await ctx.store.listAudit({ afterSeq: after, limit: pageSize });
    for (const e of page) {
      checked++;
      if (!v.push(e)) return v.finish();
    }
    opts.onProgress?.(checked, total);
    if (page.length < pageSize) break;
    after = page[page.length - 1]!.seq;
  }
  return v.finish();
}

/** Everything about one request: what was proposed, who decided what, what ran. */
export interface RequestStory {
  request: ApprovalRequest;
  proposed: { tool: string; args: Record<string, unknown>; by: string; at: number; reason: string; tier: string };
  decisions: Array<{ type: string; by: string; at: number; payload: Record<string, unknown> }>;
  executions: ExecutionRow[];
  events: AuditEvent[];
  /** Requests this one replaced or was replaced by (edits that escalated, timeouts that escalated). */
  related: { parentId: string | null; supersededBy: string | null };
}

const DECISION_EVENTS = new Set([
  'approved',
  'edited',
  'rejected',
  'responded',
  'expired',
  'escalated',
  'trusted',
  'refused',
]);

/** One call answers: what did the agent propose, who approved it, what ran? */
export async function explain(ctx: EngineContext, requestId: string): Promise<RequestStory> {
  const request = await ctx.store.getRequest(requestId);
  if (!request) throw new NotFoundError('approval_request', requestId);
  const [events, executions] = await Promise.all([
    ctx.store.listAudit({ requestId }),
    ctx.store.listExecutionsForRequest(requestId),
  ]);
  const proposedEvent = events.find((e) => e.type === 'interrupted');
  return {
    request,
    proposed: {
      tool: request.tool,
      args: (proposedEvent?.payload.args as Record<string, unknown> | undefined) ?? request.args,
      by: request.proposer,
      at: request.createdAt,
      reason: request.reason,
      tier: request.tier,
    },
    decisions: events
      .filter((e) => DECISION_EVENTS.has(e.type))
      .map((e) => ({ type: e.type, by: e.actor, at: e.at, payload: e.payload })),
    executions,
    events,
    related: { parentId: request.parentId, supersededBy: request.supersededBy },
  };
}
