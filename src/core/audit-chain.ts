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
  | 'trusted'
  | 'auto_executed'
  | 'refused'
  | 'thread_started'
  | 'thread_completed'
  | 'reviewer_added'
  | 'reviewer_revoked';

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
  seq: number;
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

/** Hash of the chain before its first event. */
export const GENESIS_HASH = '0'.repeat(64);

/** The hash of an event: covers its position, content and predecessor, so edits, deletions and reorders show. */
export function hashEvent(e: Omit<AuditEvent, 'hash'>): string {
  return sha256(
    canonicalJson({
      seq: e.seq,
      id: e.id,
      type: e.type,
      actor: e.actor,
      at: e.at,
      threadId: e.threadId,
      requestId: e.requestId,
      payload: e.payload,
      prevHash: e.prevHash,
    }),
  );
}

/** Result of walking the chain. */
export type ChainVerification =
  | { ok: true; events: number; headSeq: number; headHash: string }
  | { ok: false; events: number; brokenAt: { seq: number; id: string | null; problem: string } };

/**
 * Incremental verifier: feed events in `seq` order, then call `finish` with the
 * recorded head. Memory stays constant, so a large log verifies in one pass.
 */
export class ChainVerifier {
  private prevSeq = 0;
  private prevHash = GENESIS_HASH;
  private count = 0;
  private broken: { seq: number; id: string | null; problem: string } | null = null;

  /** Check one event; returns false once the chain is broken. */
  push(e: AuditEvent): boolean {
    if (this.broken) return false;
    this.count++;
    if (e.seq !== this.prevSeq + 1) {
      this.broken = {
        seq: e.seq,
        id: e.id,
        problem: e.seq > this.prevSeq + 1 ? `events ${this.prevSeq + 1}..${e.seq - 1} are missing (deleted)` : `sequence goes back from ${this.prevSeq} to ${e.seq} (reordered)`,
      };
    } else if (e.prevHash !== this.prevHash) {
      this.broken = { seq: e.seq, id: e.id, problem: 'does not link to the previous event (removed, inserted or reordered)' };
    } else if (hashEvent(e) !== e.hash) {
      this.broken = { seq: e.seq, id: e.id, problem: 'content changed after it was written' };
    }
    if (this.broken) return false;
    this.prevSeq = e.seq;
    this.prevHash = e.hash;
    return true;
  }

  /** Compare the end of the walk with the head the store recorded on every append. */
  finish(head: { seq: number; hash: string } | null): ChainVerification {
    if (this.broken) return { ok: false, events: this.count, brokenAt: this.broken };
    const headSeq = head?.seq ?? 0;
    const headHash = head?.hash ?? GENESIS_HASH;
    if (headSeq > this.prevSeq) {
      return {
        ok: false,
        events: this.count,
        brokenAt: {
          seq: this.prevSeq + 1,
          id: null,
          problem: `the log ends at event ${this.prevSeq} but the recorded head is event ${headSeq}: events after ${this.prevSeq} were deleted or the head was changed`,
        },
      };
    }
    if (headSeq < this.prevSeq) {
      return {
        ok: false,
        events: this.count,
        brokenAt: {
          seq: headSeq + 1,
          id: null,
          problem: `the recorded head is event ${headSeq} but the log goes on to event ${this.prevSeq}: events after ${headSeq} were added outside the log or the head was changed`,
        },
      };
    }
    if (headHash !== this.prevHash) {
      return {
        ok: false,
        events: this.count,
        brokenAt: {
          seq: this.prevSeq,
          id: null,
          problem: `event ${this.prevSeq} does not match the recorded head hash: the log was rewritten and re-hashed, or the head was changed`,
        },
      };
    }
    return { ok: true, events: this.count, headSeq, headHash };
  }
}
