import { canonicalJson, redact, type ApprovalRequest } from '../core/index.ts';
import type { EngineContext } from './context.ts';

/** Open and recent requests on one subject of a request (an order, a customer), with their sums. */
export interface SubjectView {
  /** The argument name and the request's value under it (`orderId`, `ORD-7`). */
  key: string;
  value: string | number;
  /** Other requests on it still open (pending, authorized, executing): how many, and their amounts summed. */
  open: { count: number; amount: number | null };
  /** Other requests on it that ran: how many, and their amounts summed (what was refunded so far). */
  executed: { count: number; amount: number | null };
  /** Those requests, newest first (at most `limit`), the request itself left out. */
  requests: ApprovalRequest[];
}

/** How far back a finished request still counts as related (open ones always do). */
const RECENT_MS = 30 * 24 * 3_600_000;

const OPEN = new Set(['pending', 'authorized', 'executing']);

/**
 * The requests related to `req`: for each subject argument its tool declares (`subject`), the open and
 * recent requests whose arguments hold the same value, of any tool, with their counts and amounts.
 * Empty when the tool declares no subject.
 */
export async function relatedRequests(ctx: EngineContext, req: ApprovalRequest, limit = 50): Promise<SubjectView[]> {
  const entry = ctx.tools.get(req.tool);
  const views: SubjectView[] = [];
  for (const key of entry?.subject ?? []) {
    const value = req.args[key];
    if (typeof value !== 'string' && typeof value !== 'number') continue;
    const found = await ctx.store.listRequestsOnSubject(key, value, ctx.now() - RECENT_MS, limit + 1);
    // Planted checks count like any request: leaving them out here would tell them apart in the queue.
    const others = found.filter((r) => r.id !== req.id && r.id !== req.supersededBy);
    const sum = (rs: ApprovalRequest[]) => {
      const amounts = rs.map((r) => amountOf(ctx, r)).filter((a): a is number => a !== null);
      return amounts.length ? amounts.reduce((a, b) => a + b, 0) : null;
    };
    const open = others.filter((r) => OPEN.has(r.status));
    const executed = others.filter((r) => r.status === 'executed');
    views.push({
      key,
      value,
      open: { count: open.length, amount: sum(open) },
      executed: { count: executed.length, amount: sum(executed) },
      requests: others.slice(0, limit),
    });
  }
  return views;
}

/** A request's amount: the argument its tool names (`amount` by default), when it is a number. */
function amountOf(ctx: EngineContext, r: ApprovalRequest): number | null {
  const v = r.args[ctx.tools.get(r.tool)?.amount ?? 'amount'];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** The facts a card shows about a request's call: read now when the tool can, else as recorded. */
export interface FactsView {
  /** When these facts were read (epoch ms): now, or when the request opened. */
  asOf: number;
  /** Read again now (the tool declares `facts`), or the evidence recorded when the request opened. */
  refreshed: boolean;
  facts: Record<string, unknown>;
  /** The facts recorded when the request opened (its evidence). */
  atOpen: Record<string, unknown>;
  /** Keys of the facts read now whose value differs from when the request opened. */
  changed: string[];
  /** Why the facts could not be read again (the tool's error), when they could not. */
  error?: string;
}

/**
 * The facts about a request's call as of now: the tool's `facts` read again (redacted as evidence
 * is), compared key by key with what was recorded when the request opened. A tool without `facts`,
 * or one that fails, gives the recorded evidence, dated.
 */
export async function currentFacts(ctx: EngineContext, req: ApprovalRequest): Promise<FactsView> {
  const read = ctx.tools.get(req.tool)?.facts;
  const recorded: FactsView = {
    asOf: req.createdAt,
    refreshed: false,
    facts: req.evidence,
    atOpen: req.evidence,
    changed: [],
  };
  if (!read) return recorded;
  let facts: Record<string, unknown>;
  try {
    facts = redact(await read(req.args, { threadId: req.threadId }));
  } catch (e) {
    return { ...recorded, error: e instanceof Error ? e.message : String(e) };
  }
  // Only what the tool reads again is compared: the rest of the evidence (a customer's message) is as it was.
  const changed = Object.keys(facts).filter(
    (k) => canonicalJson(facts[k] ?? null) !== canonicalJson(req.evidence[k] ?? null),
  );
  return { asOf: ctx.now(), refreshed: true, facts, atOpen: req.evidence, changed };
}
