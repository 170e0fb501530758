import { canonicalJson, sha256 } from './canonical.ts';

/** Kinds of audit events. */
export type AuditType =
  | 'interrupted'
  | 'notified'
  | 'notify_failed'
  | 'approved'
  | 'edited'
  | 'rejected'
  | 'responded'
  | 'expired'
  | 'escalated'
  | 'resumed'
  | 'executed'
  | 'failed'
  | 'aborted'
  | 'cancelled'
  | 'trusted'
  | 'auto_executed'
  | 'refused'
  | 'thread_started'
  | 'thread_completed'
  /** Work passed to another agent: a sub-agent started on a child thread, or a handoff. */
  | 'delegated'
  /** A planted check was placed (operators list them; reviewers see the request like any other). */
  | 'planted'
  | 'reviewer_added'
  | 'reviewer_revoked'
  /** Someone read personal data unmasked (GET /threads/:id?raw=1, `threads show --raw`). */
  | 'raw_viewed'
  /** A gateway answered a decided call's outcome to its client (an MCP repeat collects it once). */
  | 'outcome_delivered'
  /** A reviewer added an internal note to a request (for reviewers only; never sent to the agent). */
  | 'note_added';

/** The content of an event, before it is chained. */
export interface AuditEventInput {
  type: AuditType;
  /** Who caused it: `reviewer:<id>`, `agent:<name>`, `system:sweeper`… */
  actor: string;
  threadId?: string | null;
  requestId?: string | null;
  payload?: Record<string, unknown>;
}

/** A chained event as stored. */
export interface AuditEvent {
  /** Position in the whole log: the order listings and exports use. */
  seq: number;
  /** The chain the event was appended to (0: events written before the log had several chains). */
  chain: number;
  /** Position in its chain: 1, 2, 3… with no gaps. */
  chainSeq: number;
  id: string;
  type: AuditType;
  actor: string;
  at: number;
  threadId: string | null;
  requestId: string | null;
  payload: Record<string, unknown>;
  prevHash: string;
  hash: string;
}

/** Hash of a chain before its first event. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * Number of chains new events are spread over. Appenders lock only their
 * chain's head, so transactions of different threads append in parallel
 * (one chain would serialize every audited write of every process).
 */
export const AUDIT_CHAINS = 64;

/** The chain of events keyed by `key` (a thread id, else a request or event id): a thread's events share one chain. */
export function auditChainFor(key: string): number {
  // FNV-1a: cheap, stable across processes and versions (a chain choice is never re-derived, only stored).
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return ((h >>> 0) % AUDIT_CHAINS) + 1;
}

/** The recorded end of one chain: its last position and hash. */
export interface ChainHead {
  chain: number;
  seq: number;
  hash: string;
}

/**
 * The hash of an event: covers its chain, position in it, content and
 * predecessor, so edits, deletions, moves and reorders show. Chain 0 (events
 * from before several chains) keeps the original form, which covered the
 * position as `seq`.
 */
export function hashEvent(e: Omit<AuditEvent, 'hash'>): string {
  const body = {
    id: e.id,
    type: e.type,
    actor: e.actor,
    at: e.at,
    threadId: e.threadId,
    requestId: e.requestId,
    payload: e.payload,
    prevHash: e.prevHash,
  };
  // canonicalJson sorts keys, so where the position fields sit in the object does not matter.
  return sha256(
    canonicalJson(e.chain === 0 ? { seq: e.chainSeq, ...body } : { chain: e.chain, chainSeq: e.chainSeq, ...body }),
  );
}

/**
 * {@link hashEvent}'s input with the two values only the chain's head knows left out: the text
 * hashed is `head + chainSeq + mid + prevHash + tail`. A database that appends under the
 * chain's lock (PostgreSQL's `il_audit_append`) fills them in and hashes there, so the event
 * needs no round trip to read the head first. Only for chains after 0 (their form names `chain`).
 */
export function hashParts(e: Omit<AuditEvent, 'hash' | 'chainSeq' | 'prevHash' | 'seq'>): {
  head: string;
  mid: string;
  tail: string;
} {
  // canonicalJson's key order: actor, at, chain, chainSeq, id, payload, prevHash, requestId, threadId, type.
  const j = canonicalJson;
  return {
    head: `{"actor":${j(e.actor)},"at":${j(e.at)},"chain":${j(e.chain)},"chainSeq":`,
    mid: `,"id":${j(e.id)},"payload":${j(e.payload)},"prevHash":"`,
    tail: `","requestId":${j(e.requestId)},"threadId":${j(e.threadId)},"type":${j(e.type)}}`,
  };
}
