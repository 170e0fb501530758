import { GENESIS_HASH, hashEvent, type AuditEvent, type ChainHead } from './audit-chain.ts';
import { canonicalJson, sha256 } from './canonical.ts';

/** Result of walking the chain. `findings` (when there are any) never fail it: see {@link TimeBackwards}. */
export type ChainVerification =
  | { ok: true; events: number; headSeq: number; headHash: string; heads?: ChainHead[]; findings?: AuditFindings }
  | { ok: false; events: number; brokenAt: BrokenAt; findings?: AuditFindings };

/**
 * An event whose `at` is earlier than the one before it in the same chain by more than the
 * tolerance. The hashes still link, so nothing was tampered with: a clock ran backwards (an NTP
 * step) or the processes writing the chain disagree about the time. Times in that stretch of the
 * log are not to be trusted to order events; the chain order is.
 */
export interface TimeBackwards {
  kind: 'time_backwards';
  /** Log position and id of the event whose time is earlier. */
  seq: number;
  id: string;
  chain: number | null;
  at: number;
  /** Log position and time of the event before it in its chain. */
  previousSeq: number;
  previousAt: number;
  /** How far back the time went, in ms (`previousAt - at`). */
  backMs: number;
}

/** Findings that do not fail verification: the first {@link MAX_FINDINGS} in log order, and how many in all. */
export interface AuditFindings {
  total: number;
  first: TimeBackwards[];
}

/** How many findings a result lists (the total counts them all). */
export const MAX_FINDINGS = 100;

/**
 * Default tolerance before a backward time is a finding: events of one chain committed by several
 * processes may land out of their `at` order by a commit's latency and ordinary clock error.
 */
export const DEFAULT_CLOCK_TOLERANCE_MS = 1000;

/** Where the verifiers of one walk gather their findings. */
class FindingSink {
  total = 0;
  readonly first: TimeBackwards[] = [];
  add(f: TimeBackwards): void {
    this.total++;
    if (this.first.length < MAX_FINDINGS) this.first.push(f);
  }
  /** `{ findings }` for a result when there are any, else nothing (results without findings keep their shape). */
  spread(): { findings?: AuditFindings } {
    if (this.total === 0) return {};
    // Chains are verified interleaved; list the findings in log order.
    return { findings: { total: this.total, first: [...this.first].sort((a, b) => a.seq - b.seq) } };
  }
}

/**
 * Where verification found the log broken: `seq` is the log position (the `#`
 * users see) of an event that exists — the one named by `id`, or, when events
 * are missing from the end, the last good one (0 when none is left).
 */
export interface BrokenAt {
  seq: number;
  id: string | null;
  problem: string;
  chain?: number;
}

/**
 * Incremental verifier of ONE chain: feed its events in order, then call
 * `finish` with the chain's recorded head. Positions (`chainSeq`) must run
 * 1, 2, 3… and each event must link to the one before. Memory stays constant.
 */
export class ChainVerifier {
  private prevPos = 0;
  private prevHash = GENESIS_HASH;
  /** Log position of the last event that verified, and of the first event past `expectHead`. */
  private lastSeq = 0;
  private lastId: string | null = null;
  private pastHeadSeq: number | null = null;
  private pastHeadId: string | null = null;
  private count = 0;
  private broken: BrokenAt | null = null;
  /**
   * Positions skipped at `seq`: deleted, or only moved later in the log (a swap).
   * Which one shows only further on, so the verdict waits for the end or for one of them.
   */
  private gap: { seq: number; id: string; pos: number; from: number; to: number } | null = null;
  private readonly label: string;
  private readonly expectHead: number | null;
  private readonly chainNo: number | null;
  private readonly tolerance: number;
  private readonly findings: FindingSink;
  private prevAt: number | null = null;

  /**
   * `chain` only names the chain in messages; `expectHead`, when known before the walk, lets an event past the head be named exactly.
   * `clockToleranceMs`: how far back an event's time may go before it is a {@link TimeBackwards} finding (default 1 s).
   */
  constructor(opts: { chain?: number; expectHead?: number; clockToleranceMs?: number; findings?: FindingSink } = {}) {
    this.label = opts.chain === undefined ? '' : `chain ${opts.chain}: `;
    this.expectHead = opts.expectHead ?? null;
    this.chainNo = opts.chain ?? null;
    this.tolerance = opts.clockToleranceMs ?? DEFAULT_CLOCK_TOLERANCE_MS;
    this.findings = opts.findings ?? new FindingSink();
  }

  /** True after a gap whose missing events may still turn up later in the log (then it was a reorder). */
  get waiting(): boolean {
    return this.gap !== null && this.broken === null;
  }

  /** Check one event; returns false once the chain is broken. */
  push(e: AuditEvent): boolean {
    if (this.broken) return false;
    this.count++;
    const pos = e.chainSeq;
    if (this.gap) {
      const g = this.gap;
      if (pos < g.from || pos > g.to) return true;
      this.broken = {
        seq: g.seq,
        id: g.id,
        problem: `${this.label}event ${g.pos} (log #${g.seq}) comes before event ${pos} (log #${e.seq}): the log was reordered`,
      };
      return false;
    }
    if (pos > this.prevPos + 1) {
      this.gap = { seq: e.seq, id: e.id, pos, from: this.prevPos + 1, to: pos - 1 };
      return true;
    }
    if (pos !== this.prevPos + 1) {
      this.broken = {
        seq: e.seq,
        id: e.id,
        problem: `${this.label}sequence goes back from ${this.prevPos} to ${pos} (reordered)`,
      };
    } else if (e.prevHash !== this.prevHash) {
      this.broken = {
        seq: e.seq,
        id: e.id,
        problem: `${this.label}does not link to the previous event (removed, inserted or reordered)`,
      };
    } else if (hashEvent(e) !== e.hash) {
      this.broken = { seq: e.seq, id: e.id, problem: `${this.label}content changed after it was written` };
    }
    if (this.broken) return false;
    if (this.expectHead !== null && pos === this.expectHead + 1) {
      this.pastHeadSeq = e.seq;
      this.pastHeadId = e.id;
    }
    this.noteTime(e);
    this.prevPos = pos;
    this.prevHash = e.hash;
    this.lastSeq = e.seq;
    this.lastId = e.id;
    return true;
  }

  /** A linked event earlier than its predecessor beyond the tolerance is a finding, not a break. */
  private noteTime(e: AuditEvent): void {
    if (this.prevAt !== null && e.at < this.prevAt - this.tolerance) {
      this.findings.add({
        kind: 'time_backwards',
        seq: e.seq,
        id: e.id,
        chain: this.chainNo,
        at: e.at,
        previousSeq: this.lastSeq,
        previousAt: this.prevAt,
        backMs: this.prevAt - e.at,
      });
    }
    this.prevAt = e.at;
  }

  /** Compare the end of the walk with the head the store recorded on every append. */
  finish(head: { seq: number; hash: string } | null): ChainVerification {
    if (this.gap && !this.broken) {
      // The skipped events never turned up: they were deleted.
      const g = this.gap;
      this.broken = { seq: g.seq, id: g.id, problem: `${this.label}events ${g.from}..${g.to} are missing (deleted)` };
    }
    if (this.broken) return { ok: false, events: this.count, brokenAt: this.broken, ...this.findings.spread() };
    const headPos = head?.seq ?? 0;
    const headHash = head?.hash ?? GENESIS_HASH;
    const fail = (seq: number, id: string | null, problem: string): ChainVerification => ({
      ok: false,
      events: this.count,
      brokenAt: { seq, id, problem: `${this.label}${problem}` },
      ...this.findings.spread(),
    });
    if (headPos > this.prevPos) {
      // Named at the last event that is still there (log numbers of deleted events name nothing).
      const at =
        this.prevPos === 0
          ? 'the log has none of its events'
          : `the log ends at event ${this.prevPos} (log #${this.lastSeq})`;
      return fail(
        this.lastSeq,
        this.lastId,
        `${at} but the recorded head is event ${headPos}: events after ${this.prevPos} were deleted or the head was changed`,
      );
    }
    if (headPos < this.prevPos) {
      // Without the head known before the walk (a chain checked on its own), its position stands for the log's.
      return fail(
        this.pastHeadSeq ?? headPos + 1,
        this.pastHeadId,
        `the recorded head is event ${headPos} but the log goes on to event ${this.prevPos}: events after ${headPos} were added outside the log or the head was changed`,
      );
    }
    if (headHash !== this.prevHash) {
      return fail(
        this.lastSeq,
        this.lastId,
        `event ${this.prevPos} does not match the recorded head hash: the log was rewritten and re-hashed, or the head was changed`,
      );
    }
    return { ok: true, events: this.count, headSeq: this.lastSeq, headHash, ...this.findings.spread() };
  }
}

/**
 * Verifier of the whole log: feed every event in log order (`seq`), then call
 * `finish`. Each chain is checked on its own against its recorded head; the
 * log order must only ever increase. `headHash` of the result fingerprints
 * every chain's head at once.
 */
export class AuditVerifier {
  private readonly chains = new Map<number, ChainVerifier>();
  private readonly heads: Map<number, ChainHead>;
  private lastSeq = 0;
  private count = 0;
  private broken: BrokenAt | null = null;
  /** A chain that skipped positions: from then on only its events matter (do the missing ones turn up later?). */
  private waiting: number | null = null;

  /** Heads kept from an earlier verification, by chain: each must still hold its hash at its position. */
  private readonly saved: Map<number, ChainHead>;

  /**
   * `heads`: every chain's recorded head, read before the walk. `saved`: heads an
   * operator kept elsewhere from an earlier run (`heads` of its result); this
   * catches a chain rewritten and re-hashed together with its head row.
   */
  constructor(heads: readonly ChainHead[], saved: readonly ChainHead[] = [], opts: { clockToleranceMs?: number } = {}) {
    this.heads = new Map(heads.map((h) => [h.chain, h]));
    this.saved = new Map(saved.filter((h) => h.seq > 0).map((h) => [h.chain, h]));
    this.clockToleranceMs = opts.clockToleranceMs;
  }

  private readonly clockToleranceMs: number | undefined;
  private readonly findings = new FindingSink();

  private chain(n: number): ChainVerifier {
    let v = this.chains.get(n);
    if (!v) {
      const head = this.heads.get(n);
      v = new ChainVerifier({
        chain: n,
        ...(head ? { expectHead: head.seq } : {}),
        ...(this.clockToleranceMs === undefined ? {} : { clockToleranceMs: this.clockToleranceMs }),
        findings: this.findings,
      });
      this.chains.set(n, v);
    }
    return v;
  }

  /** Check one event; returns false once the log is broken. */
  push(e: AuditEvent): boolean {
    if (this.broken) return false;
    this.count++;
    if (e.seq <= this.lastSeq) {
      this.broken = {
        seq: e.seq,
        id: e.id,
        problem: `log order goes back from ${this.lastSeq} to ${e.seq} (reordered)`,
      };
      return false;
    }
    if (!this.heads.has(e.chain)) {
      this.broken = {
        seq: e.seq,
        id: e.id,
        chain: e.chain,
        problem: `chain ${e.chain} does not exist: the event was added or moved outside the log`,
      };
      return false;
    }
    this.lastSeq = e.seq;
    // After a gap, the first problem in log order is found; the rest of the log only tells deleted from moved.
    if (this.waiting !== null) return e.chain === this.waiting ? this.feed(e) : true;
    const kept = this.saved.get(e.chain);
    if (kept && kept.seq === e.chainSeq) {
      if (kept.hash !== e.hash) {
        this.broken = {
          seq: e.seq,
          id: e.id,
          chain: e.chain,
          problem: `chain ${e.chain}: event ${e.chainSeq} is not the one the saved head names (hash ${kept.hash.slice(0, 12)}…): the chain was rewritten since`,
        };
        return false;
      }
      this.saved.delete(e.chain);
    }
    return this.feed(e);
  }

  private feed(e: AuditEvent): boolean {
    const v = this.chain(e.chain);
    if (v.push(e)) {
      if (v.waiting) this.waiting = e.chain;
      return true;
    }
    const r = v.finish(null);
    if (!r.ok) this.broken = { ...r.brokenAt, chain: e.chain };
    return false;
  }

  /** Compare each chain's end with its recorded head; the first problem in log order is reported. */
  finish(): ChainVerification {
    return { ...this.verdict(), ...this.findings.spread() };
  }

  private verdict(): ChainVerification {
    if (this.broken) return { ok: false, events: this.count, brokenAt: this.broken };
    if (this.waiting !== null) {
      const r = this.chain(this.waiting).finish(null);
      if (!r.ok) return { ok: false, events: this.count, brokenAt: { ...r.brokenAt, chain: this.waiting } };
    }
    let first: BrokenAt | null = null;
    for (const head of [...this.heads.values()].sort((a, b) => a.chain - b.chain)) {
      const r = this.chain(head.chain).finish(head);
      if (!r.ok && (!first || r.brokenAt.seq < first.seq)) first = { ...r.brokenAt, chain: head.chain };
    }
    if (first) return { ok: false, events: this.count, brokenAt: first };
    // A saved head whose position was never reached: the chain is shorter now than when it was saved.
    const unreached = [...this.saved.values()].sort((a, b) => a.chain - b.chain)[0];
    if (unreached) {
      return {
        ok: false,
        events: this.count,
        brokenAt: {
          seq: this.lastSeq + 1,
          id: null,
          chain: unreached.chain,
          problem: `chain ${unreached.chain}: the saved head is event ${unreached.seq}, but the chain no longer reaches it: events were deleted since`,
        },
      };
    }
    const fingerprint = [...this.heads.values()].filter((h) => h.seq > 0).sort((a, b) => a.chain - b.chain);
    // `heads`: what to keep elsewhere — later, each chain must still hold this hash at this position.
    return {
      ok: true,
      events: this.count,
      headSeq: this.lastSeq,
      headHash: fingerprint.length === 0 ? GENESIS_HASH : sha256(canonicalJson(fingerprint)),
      heads: fingerprint,
    };
  }
}
