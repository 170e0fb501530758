import { redactText, type ApprovalRequest } from '../core/index.ts';
import type { Interlock } from '../engine/index.ts';

/**
 * What the review card needs beyond the request row, read from the audit log, the request chain
 * and the thread tree: how the request ended (the failed execution's error, why it was cancelled),
 * the request an edit handed over to, when its evidence was computed, and — in a tree of agents —
 * the customer's own words from the root thread. Everything here depends only on the request and
 * its thread, never on whether it is a planted check, so a check still reads like any request.
 */

/** How a request that left review ended, when the audit log says more than its status. */
export interface RequestEnding {
  /** When it ran, failed or was cancelled (ISO). */
  at: string;
  /** The failed execution's error, masked like evidence; null otherwise. */
  error: string | null;
  /** Why it was cancelled ("the thread was aborted"); null otherwise. */
  reason: string | null;
}

/** The request an edit (or a timeout escalation) handed over to: the rule that fired and who decides it now. */
export interface ReplacementView {
  id: string;
  ruleId: string;
  reason: string;
  tier: string;
  requiredRole: string;
  approvalsRequired: number;
  status: string;
}

/** See {@link reviewFacts}. */
export interface ReviewFacts {
  ended: RequestEnding | null;
  replacement: ReplacementView | null;
  /** When the evidence was computed: the opening of the first request of the chain (edits copy it). */
  evidenceAsOf: number;
  /** In a tree of agents, the customer's last words in the root thread before the delegation; else null. */
  rootCustomerMessage: string | null;
}

type Reads = Pick<Interlock, 'getRequest' | 'threads' | 'audit'>;

/** Audit events that end a request's life after review, with what the card says of each. */
const ENDINGS: Record<string, true> = { executed: true, failed: true, cancelled: true };

/** Requests an edit or an escalation chain holds at most, as far as finding its first is concerned. */
const CHAIN_LIMIT = 20;

/** Read what the review packet adds to the request (see the file comment). */
export async function reviewFacts(interlock: Reads, req: ApprovalRequest): Promise<ReviewFacts> {
  const [ended, replacement, evidenceAsOf, rootCustomerMessage] = await Promise.all([
    endingOf(interlock, req),
    replacementOf(interlock, req),
    firstOpened(interlock, req),
    rootCustomerWords(interlock, req),
  ]);
  return { ended, replacement, evidenceAsOf, rootCustomerMessage };
}

async function endingOf(interlock: Reads, req: ApprovalRequest): Promise<RequestEnding | null> {
  if (!ENDINGS[req.status]) return null;
  const events = await interlock.audit.listAudit({ requestId: req.id });
  const last = events.findLast((e) => ENDINGS[e.type]);
  if (!last) return null;
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? redactText(v) : null);
  return {
    at: new Date(last.at).toISOString(),
    error: last.type === 'failed' ? (text(last.payload.error) ?? 'the tool failed without a message') : null,
    reason: last.type === 'cancelled' ? text(last.payload.reason) : null,
  };
}

async function replacementOf(interlock: Reads, req: ApprovalRequest): Promise<ReplacementView | null> {
  if (!req.supersededBy) return null;
  const next = await interlock.getRequest(req.supersededBy);
  if (!next) return null;
  return {
    id: next.id,
    ruleId: next.ruleId,
    reason: next.reason,
    tier: next.tier,
    requiredRole: next.role,
    approvalsRequired: next.approvalsRequired,
    status: next.status,
  };
}

/** An edit's or an escalation's request carries its parent's evidence: it is as old as the first request. */
async function firstOpened(interlock: Reads, req: ApprovalRequest): Promise<number> {
  let at = req.createdAt;
  let parent = req.parentId;
  for (let i = 0; parent && i < CHAIN_LIMIT; i++) {
    const r = await interlock.getRequest(parent);
    if (!r) break;
    at = r.createdAt;
    parent = r.parentId;
  }
  return at;
}

/** A stored conversation message, as far as this reads it. */
interface MessageLike {
  role?: unknown;
  content?: unknown;
}

function textOf(m: MessageLike): string {
  if (typeof m.content === 'string') return m.content;
  if (!Array.isArray(m.content)) return '';
  return (m.content as Array<{ type?: unknown; text?: unknown }>)
    .filter((p) => p.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text as string)
    .join('');
}

/**
 * In a sub-agent's thread (`<root>.<callId>`, deeper ones `<root>.<callId>.<callId>`), the evidence's
 * "customer message" is what the parent agent asked it. The customer's words are the root thread's:
 * its last user message before the assistant message that made the delegating call (or its last,
 * when no call of the root matches, as for a graph's nodes). Masked like evidence.
 */
async function rootCustomerWords(interlock: Reads, req: ApprovalRequest): Promise<string | null> {
  const thread = await interlock.threads.getThread(req.threadId);
  const root = thread?.metadata.rootThreadId;
  if (typeof root !== 'string' || root === req.threadId) return null;
  const messages = (await interlock.threads.listMessages(root)) as MessageLike[];
  const delegating = messages.findIndex(
    (m) =>
      Array.isArray(m.content) &&
      (m.content as Array<{ type?: unknown; toolCallId?: unknown }>).some((p) => {
        if (p.type !== 'tool-call' || typeof p.toolCallId !== 'string') return false;
        const child = `${root}.${p.toolCallId}`;
        return req.threadId === child || req.threadId.startsWith(`${child}.`);
      }),
  );
  const before = delegating === -1 ? messages : messages.slice(0, delegating);
  const said = before.findLast((m) => m.role === 'user');
  return said ? redactText(textOf(said)) : null;
}
