import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { canonicalJson, sha256 } from './canonical.ts';
import {
  auditChainFor,
  AUDIT_CHAINS,
  GENESIS_HASH,
  hashEvent,
  hashParts,
  type AuditEvent,
  type AuditEventInput,
  type AuditType,
} from './audit-chain.ts';
import { AuditVerifier, ChainVerifier, type ChainVerification } from './audit-verify.ts';

const TYPES: AuditType[] = [
  'interrupted',
  'notified',
  'approved',
  'edited',
  'rejected',
  'responded',
  'expired',
  'escalated',
  'resumed',
  'executed',
  'failed',
  'aborted',
  'trusted',
  'auto_executed',
  'refused',
  'thread_started',
  'thread_completed',
];

/** Append events the way a store does: next seq, link to the previous hash, hash the rest. */
function chain(inputs: readonly AuditEventInput[], startAt = Date.parse('2024-01-15T12:00:00Z')): AuditEvent[] {
  const out: AuditEvent[] = [];
  let prevHash = GENESIS_HASH;
  inputs.forEach((input, i) => {
    const body: Omit<AuditEvent, 'hash'> = {
      seq: i + 1,
      chain: 1,
      chainSeq: i + 1,
      id: `evt_${i + 1}`,
      type: input.type,
      actor: input.actor,
      at: startAt + i * 1000,
      threadId: input.threadId ?? null,
      requestId: input.requestId ?? null,
      payload: input.payload ?? {},
      prevHash,
    };
    const e = { ...body, hash: hashEvent(body) };
    out.push(e);
    prevHash = e.hash;
  });
  return out;
}

function sample(n: number): AuditEvent[] {
  return chain(
    Array.from({ length: n }, (_, i) => ({
      type: TYPES[i % TYPES.length]!,
      actor: i % 2 === 0 ? 'agent:support' : 'reviewer:alice',
      threadId: 'thr_1',
      requestId: i % 3 === 0 ? null : `req_${i}`,
      payload: { i, note: `event ${i}` },
    })),
  );
}

function headOf(events: readonly AuditEvent[]): { seq: number; hash: string } | null {
  const last = events.at(-1);
  return last ? { seq: last.chainSeq, hash: last.hash } : null;
}

function verify(events: readonly AuditEvent[], head: { seq: number; hash: string } | null): ChainVerification {
  const v = new ChainVerifier();
  for (const e of events) if (!v.push(e)) break;
  return v.finish(head);
}

function assertBroken(result: ChainVerification, seq: number, id: string | null, problem: RegExp): void {
  assert.equal(result.ok, false, 'chain should be reported broken');
  if (result.ok) return;
  assert.equal(
    result.brokenAt.seq,
    seq,
    `broken at ${result.brokenAt.seq} (${result.brokenAt.problem}), expected ${seq}`,
  );
  assert.equal(result.brokenAt.id, id);
  assert.match(result.brokenAt.problem, problem);
}

/** A JSON-safe record for payloads. */
const payloadArb = fc.dictionary(
  fc.string({ maxLength: 8 }),
  fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)),
  { maxKeys: 4 },
);
const inputArb: fc.Arbitrary<AuditEventInput> = fc.record({
  type: fc.constantFrom(...TYPES),
  actor: fc.string({ minLength: 1, maxLength: 20 }),
  threadId: fc.option(fc.string({ maxLength: 10 }), { nil: null }),
  requestId: fc.option(fc.string({ maxLength: 10 }), { nil: null }),
  payload: payloadArb,
});
const chainArb = fc.array(inputArb, { minLength: 1, maxLength: 25 }).map((inputs) => chain(inputs));

describe('hashEvent', () => {
  const [e] = sample(1);
  const body = { ...e! } as Partial<AuditEvent>;
  delete body.hash;
  const base = body as Omit<AuditEvent, 'hash'>;

  it('is a hex sha256, deterministic', () => {
    assert.match(hashEvent(base), /^[0-9a-f]{64}$/);
    assert.equal(hashEvent(base), hashEvent({ ...base }));
    assert.equal(GENESIS_HASH, '0'.repeat(64));
  });

  it('ignores the key order of the payload', () => {
    assert.equal(
      hashEvent({ ...base, payload: { a: 1, b: { c: 2, d: 3 } } }),
      hashEvent({ ...base, payload: { b: { d: 3, c: 2 }, a: 1 } }),
    );
  });

  it('ignores a stale hash field on the event it is given', () => {
    const withHash: AuditEvent = { ...base, hash: 'whatever' };
    assert.equal(hashEvent(withHash), hashEvent(base));
  });

  it('covers position, content and predecessor', () => {
    const h = hashEvent(base);
    const changes: Partial<Omit<AuditEvent, 'hash'>>[] = [
      { chainSeq: base.chainSeq + 1 },
      { chain: 2 },
      { id: 'evt_other' },
      { type: 'rejected' },
      { actor: 'reviewer:mallory' },
      { at: base.at + 1 },
      { threadId: 'thr_2' },
      { threadId: null },
      { requestId: 'req_x' },
      { payload: { ...base.payload, extra: true } },
      { payload: {} },
      { prevHash: 'f'.repeat(64) },
    ];
    for (const c of changes) assert.notEqual(hashEvent({ ...base, ...c }), h, JSON.stringify(c));
  });
});

describe('hashParts', () => {
  const json = fc.jsonValue().filter((v) => v !== null && typeof v === 'object' && !Array.isArray(v));
  it('head + chainSeq + mid + prevHash + tail is exactly what hashEvent hashes (property)', () => {
    fc.assert(
      fc.property(
        fc.record({
          id: fc.string(),
          type: fc.constantFrom(...TYPES),
          actor: fc.string(),
          at: fc.nat(),
          chain: fc.integer({ min: 1, max: AUDIT_CHAINS }),
          chainSeq: fc.integer({ min: 1, max: 2 ** 40 }),
          threadId: fc.option(fc.string()),
          requestId: fc.option(fc.string()),
          payload: json,
          prevHash: fc.stringMatching(/^[0-9a-f]{64}$/),
        }),
        (e) => {
          const p = hashParts(e as Omit<AuditEvent, 'hash' | 'seq'>);
          const event = { ...e, seq: 1 } as Omit<AuditEvent, 'hash'>;
          assert.equal(sha256(p.head + String(e.chainSeq) + p.mid + e.prevHash + p.tail), hashEvent(event));
        },
      ),
    );
  });
});

describe('ChainVerifier: intact chains', () => {
  it('an empty log with no recorded head is intact', () => {
    assert.deepEqual(verify([], null), { ok: true, events: 0, headSeq: 0, headHash: GENESIS_HASH });
  });

  it('an intact chain verifies and reports its head', () => {
    const events = sample(10);
    const v = new ChainVerifier();
    for (const e of events) assert.equal(v.push(e), true);
    assert.deepEqual(v.finish(headOf(events)), { ok: true, events: 10, headSeq: 10, headHash: events[9]!.hash });
  });

  it('the first event links to the genesis hash', () => {
    const [first] = sample(1);
    assert.equal(first!.prevHash, GENESIS_HASH);
    assert.equal(first!.seq, 1);
  });

  it('any chain built by appending verifies (property)', () => {
    fc.assert(
      fc.property(chainArb, (events) => {
        const r = verify(events, headOf(events));
        assert.equal(r.ok, true);
        if (r.ok) assert.equal(r.headSeq, events.length);
      }),
      { numRuns: 200 },
    );
  });
});

describe('ChainVerifier: tampering is named at the right event', () => {
  it('changed content', () => {
    const events = sample(6);
    const changes: Partial<AuditEvent>[] = [
      { payload: { i: 2, note: 'event 2', amount: 1_000_000 } },
      { actor: 'reviewer:mallory' },
      { type: 'executed' }, // it was 'approved'
      { at: 0 },
      { id: 'evt_forged' },
      { threadId: 'thr_other' },
      { requestId: null },
    ];
    for (const c of changes) {
      const tampered = events.map((e, i) => (i === 2 ? { ...e, ...c } : e));
      assert.notDeepEqual(tampered[2], events[2], 'the change must change something');
      assertBroken(verify(tampered, headOf(events)), 3, c.id ?? 'evt_3', /content changed after it was written/);
    }
  });

  it('a replaced hash breaks at that event', () => {
    const events = sample(5);
    const tampered = events.map((e, i) => (i === 1 ? { ...e, hash: 'a'.repeat(64) } : e));
    assertBroken(verify(tampered, headOf(events)), 2, 'evt_2', /content changed/);
  });

  it('a changed link breaks at that event', () => {
    const events = sample(5);
    const tampered = events.map((e, i) => (i === 3 ? { ...e, prevHash: GENESIS_HASH } : e));
    assertBroken(verify(tampered, headOf(events)), 4, 'evt_4', /does not link to the previous event/);
  });

  it('an edited event that is re-hashed breaks the link of the next one', () => {
    const events = sample(5);
    const forged = { ...events[1]!, actor: 'reviewer:mallory' };
    forged.hash = hashEvent(forged);
    const tampered = events.map((e, i) => (i === 1 ? forged : e));
    assertBroken(verify(tampered, headOf(events)), 3, 'evt_3', /does not link/);
  });

  it('a deleted event is reported at the event after the gap, naming the gap', () => {
    const events = sample(6);
    assertBroken(
      verify(
        events.filter((_, i) => i !== 2),
        headOf(events),
      ),
      4,
      'evt_4',
      /events 3\.\.3 are missing \(deleted\)/,
    );
    assertBroken(
      verify(
        events.filter((_, i) => i !== 2 && i !== 3),
        headOf(events),
      ),
      5,
      'evt_5',
      /events 3\.\.4 are missing/,
    );
    assertBroken(verify(events.slice(1), headOf(events)), 2, 'evt_2', /events 1\.\.1 are missing/);
  });

  it('a deleted event with the rest renumbered breaks the link', () => {
    const events = sample(6);
    const renumbered = events.filter((_, i) => i !== 2).map((e, i) => ({ ...e, seq: i + 1, chainSeq: i + 1 }));
    assertBroken(verify(renumbered, headOf(events)), 3, 'evt_4', /does not link/);
  });

  it('deleted trailing events are caught by the recorded head', () => {
    const events = sample(6);
    // Named at the last event still there: a log of 4 events is never "broken at #5".
    assertBroken(
      verify(events.slice(0, 4), headOf(events)),
      4,
      'evt_4',
      /the log ends at event 4 \(log #4\) but the recorded head is event 6/,
    );
    assertBroken(
      verify([], headOf(events)),
      0,
      null,
      /the log has none of its events but the recorded head is event 6/,
    );
  });

  it('a chain rewritten and re-hashed from some event on is caught by the recorded head hash', () => {
    const events = sample(6);
    const rewritten = chain(
      events.map((e, i) => ({
        type: e.type,
        actor: i === 3 ? 'reviewer:mallory' : e.actor,
        threadId: e.threadId,
        requestId: e.requestId,
        payload: e.payload,
      })),
    );
    // Every event links, so only the head can tell.
    assert.equal(verify(rewritten, headOf(rewritten)).ok, true);
    assertBroken(verify(rewritten, headOf(events)), 6, 'evt_6', /does not match the recorded head hash/);
  });

  it('events beyond the recorded head are reported after the head', () => {
    const events = sample(6);
    assertBroken(
      verify(events, headOf(events.slice(0, 4))),
      5,
      null,
      /recorded head is event 4 but the log goes on to event 6/,
    );
    assertBroken(verify(events, null), 1, null, /recorded head is event 0/);
  });

  it('swapped rows (seq kept in place) break at the first swapped position', () => {
    const events = sample(6);
    const swapped = events.map((e, i) =>
      i === 2 ? { ...events[3]!, seq: 3, chainSeq: 3 } : i === 3 ? { ...events[2]!, seq: 4, chainSeq: 4 } : e,
    );
    assertBroken(verify(swapped, headOf(events)), 3, 'evt_4', /does not link/);
  });

  it('events fed out of order are reported where the order breaks', () => {
    const events = sample(6);
    const reordered = [events[0]!, events[1]!, events[3]!, events[2]!, events[4]!, events[5]!];
    assertBroken(
      verify(reordered, headOf(events)),
      4,
      'evt_4',
      /event 4 \(log #4\) comes before event 3 \(log #3\): the log was reordered/,
    );
    const back = [events[0]!, events[1]!, events[2]!, events[1]!];
    assertBroken(verify(back, headOf(events)), 2, 'evt_2', /sequence goes back from 3 to 2 \(reordered\)/);
  });

  it('an inserted event breaks the chain', () => {
    const events = sample(4);
    const forgedBody = {
      seq: 3,
      chain: 1,
      chainSeq: 3,
      id: 'evt_forged',
      type: 'approved' as const,
      actor: 'reviewer:mallory',
      at: events[1]!.at + 1,
      threadId: 'thr_1',
      requestId: 'req_1',
      payload: {},
      prevHash: events[1]!.hash,
    };
    const forged = { ...forgedBody, hash: hashEvent(forgedBody) };
    // Inserted with a valid link, later events renumbered: the next event no longer links.
    const renumbered = [
      events[0]!,
      events[1]!,
      forged,
      ...events.slice(2).map((e) => ({ ...e, seq: e.seq + 1, chainSeq: e.chainSeq + 1 })),
    ];
    assertBroken(verify(renumbered, headOf(events)), 4, 'evt_3', /does not link/);
    // Inserted without renumbering: the sequence repeats.
    assertBroken(
      verify([events[0]!, events[1]!, forged, ...events.slice(2)], headOf(events)),
      3,
      'evt_3',
      /sequence goes back/,
    );
  });

  it('stops at the first break and counts the events it looked at', () => {
    const events = sample(8);
    const tampered = events.map((e, i) => (i === 2 || i === 5 ? { ...e, actor: 'x' } : e));
    const v = new ChainVerifier();
    const results = tampered.map((e) => v.push(e));
    assert.deepEqual(results, [true, true, false, false, false, false, false, false]);
    const r = v.finish(headOf(events));
    assert.equal(r.ok, false);
    assert.equal(r.events, 3);
    if (!r.ok) assert.equal(r.brokenAt.seq, 3);
  });

  describe('properties: any single tampering of a random chain is caught at the right seq', () => {
    const fields = ['payload', 'actor', 'type', 'at', 'threadId', 'requestId'] as const;

    it('modification of one field of one event', () => {
      fc.assert(
        fc.property(chainArb, fc.nat(), fc.constantFrom(...fields), (events, pick, field) => {
          const i = pick % events.length;
          const original = events[i]!;
          const changed: AuditEvent = { ...original };
          switch (field) {
            case 'payload':
              changed.payload = { ...original.payload, tampered: true };
              break;
            case 'actor':
              changed.actor = `${original.actor}!`;
              break;
            case 'type':
              changed.type = original.type === 'approved' ? 'rejected' : 'approved';
              break;
            case 'at':
              changed.at = original.at + 1;
              break;
            case 'threadId':
              changed.threadId = original.threadId === null ? 'thr_x' : null;
              break;
            case 'requestId':
              changed.requestId = original.requestId === null ? 'req_x' : null;
              break;
          }
          const tampered = events.map((e, j) => (j === i ? changed : e));
          assertBroken(verify(tampered, headOf(events)), i + 1, original.id, /content changed/);
        }),
        { numRuns: 300 },
      );
    });

    it('modification re-hashed to look consistent', () => {
      fc.assert(
        fc.property(chainArb, fc.nat(), (events, pick) => {
          const i = pick % events.length;
          const changed = { ...events[i]!, payload: { ...events[i]!.payload, tampered: true } };
          changed.hash = hashEvent(changed);
          const tampered = events.map((e, j) => (j === i ? changed : e));
          const r = verify(tampered, headOf(events));
          if (i === events.length - 1) assertBroken(r, i + 1, events[i]!.id, /recorded head hash/);
          else assertBroken(r, i + 2, events[i + 1]!.id, /does not link/);
        }),
        { numRuns: 300 },
      );
    });

    it('deletion of one event', () => {
      fc.assert(
        fc.property(chainArb, fc.nat(), (events, pick) => {
          const i = pick % events.length;
          const r = verify(
            events.filter((_, j) => j !== i),
            headOf(events),
          );
          if (i === events.length - 1) assertBroken(r, i, i === 0 ? null : events[i - 1]!.id, /recorded head is event/);
          else assertBroken(r, i + 2, events[i + 1]!.id, new RegExp(`events ${i + 1}\\.\\.${i + 1} are missing`));
        }),
        { numRuns: 300 },
      );
    });

    it('swap of two rows (each keeps its seq slot)', () => {
      fc.assert(
        fc.property(
          chainArb.filter((e) => e.length >= 2),
          fc.nat(),
          fc.nat(),
          (events, a, b) => {
            const i = a % events.length;
            let j = b % events.length;
            if (j === i) j = (i + 1) % events.length;
            const [lo, hi] = i < j ? [i, j] : [j, i];
            const swapped = events.map((e, k) =>
              k === lo
                ? { ...events[hi]!, seq: lo + 1, chainSeq: lo + 1 }
                : k === hi
                  ? { ...events[lo]!, seq: hi + 1, chainSeq: hi + 1 }
                  : e,
            );
            assertBroken(verify(swapped, headOf(events)), lo + 1, events[hi]!.id, /does not link/);
          },
        ),
        { numRuns: 300 },
      );
    });

    it('swap of two events in the feed (each keeps its own seq)', () => {
      fc.assert(
        fc.property(
          chainArb.filter((e) => e.length >= 2),
          fc.nat(),
          fc.nat(),
          (events, a, b) => {
            const i = a % events.length;
            let j = b % events.length;
            if (j === i) j = (i + 1) % events.length;
            const [lo, hi] = i < j ? [i, j] : [j, i];
            const swapped = events.map((e, k) => (k === lo ? events[hi]! : k === hi ? events[lo]! : e));
            // The event now at position lo carries seq hi+1: the verifier stops there.
            // A swap is a reorder, not a deletion: the missing event turns up later.
            assertBroken(verify(swapped, headOf(events)), hi + 1, events[hi]!.id, /reordered/);
          },
        ),
        { numRuns: 300 },
      );
    });
  });
});

/** Events of several threads appended the way the store does: each to its thread's chain, log positions shared. */
function multiChain(
  threads: readonly string[],
  perThread: number,
): { events: AuditEvent[]; heads: Array<{ chain: number; seq: number; hash: string }> } {
  const heads = new Map<number, { chain: number; seq: number; hash: string }>();
  for (let c = 0; c <= AUDIT_CHAINS; c++) heads.set(c, { chain: c, seq: 0, hash: GENESIS_HASH });
  const events: AuditEvent[] = [];
  for (let k = 0; k < perThread; k++) {
    for (const t of threads) {
      const h = heads.get(auditChainFor(t))!;
      const body: Omit<AuditEvent, 'hash'> = {
        seq: events.length + 1,
        chain: h.chain,
        chainSeq: h.seq + 1,
        id: `evt_${events.length + 1}`,
        type: 'approved',
        actor: 'reviewer:a',
        at: 1000 + events.length,
        threadId: t,
        requestId: null,
        payload: { k },
        prevHash: h.hash,
      };
      const e = { ...body, hash: hashEvent(body) };
      events.push(e);
      heads.set(h.chain, { chain: h.chain, seq: e.chainSeq, hash: e.hash });
    }
  }
  return { events, heads: [...heads.values()] };
}

function verifyAll(
  events: readonly AuditEvent[],
  heads: Array<{ chain: number; seq: number; hash: string }>,
): ChainVerification {
  const v = new AuditVerifier(heads);
  for (const e of events) if (!v.push(e)) break;
  return v.finish();
}

describe('AuditVerifier: the log as several chains', () => {
  const threads = ['thr_a', 'thr_b', 'thr_c', 'thr_d', 'thr_e'];

  it('spreads threads over chains 1..AUDIT_CHAINS, the same chain for the same thread', () => {
    const chains = new Set(Array.from({ length: 500 }, (_, i) => auditChainFor(`thr_${i}`)));
    assert.ok(chains.size > AUDIT_CHAINS / 2, `only ${chains.size} chains used`);
    for (const c of chains) assert.ok(c >= 1 && c <= AUDIT_CHAINS);
    assert.equal(auditChainFor('thr_x'), auditChainFor('thr_x'));
  });

  it('an interleaved log of several chains verifies; its head hash fingerprints every chain', () => {
    const { events, heads } = multiChain(threads, 4);
    const r = verifyAll(events, heads);
    assert.equal(r.ok, true, JSON.stringify(r));
    if (!r.ok) return;
    assert.equal(r.events, 20);
    assert.equal(r.headSeq, 20);
    const other = multiChain(threads, 5);
    const r2 = verifyAll(other.events, other.heads);
    assert.ok(r2.ok && r2.headHash !== r.headHash);
    assert.deepEqual(
      verifyAll(
        [],
        heads.map((h) => ({ ...h, seq: 0, hash: GENESIS_HASH })),
      ),
      { ok: true, events: 0, headSeq: 0, headHash: GENESIS_HASH, heads: [] },
    );
    assert.deepEqual(
      r.heads,
      heads.filter((h) => h.seq > 0),
      'the heads to keep elsewhere',
    );
  });

  it('names a changed event by its log position and chain', () => {
    const { events, heads } = multiChain(threads, 4);
    const tampered = events.map((e, i) => (i === 7 ? { ...e, payload: { k: 99 } } : e));
    const r = verifyAll(tampered, heads);
    assert.equal(r.ok, false);
    if (!r.ok) {
      assert.equal(r.brokenAt.seq, 8);
      assert.equal(r.brokenAt.chain, events[7]!.chain);
      assert.match(r.brokenAt.problem, /content changed/);
    }
  });

  it('an event moved to another chain, even re-hashed, breaks both chains', () => {
    const { events, heads } = multiChain(threads, 4);
    const victim = events[6]!;
    const target = events.find((e) => e.chain !== victim.chain)!.chain;
    const moved = { ...victim, chain: target };
    assert.equal(
      verifyAll(
        events.map((e) => (e === victim ? moved : e)),
        heads,
      ).ok,
      false,
    );
    const rehashed = { ...moved, hash: hashEvent(moved) };
    assert.equal(
      verifyAll(
        events.map((e) => (e === victim ? rehashed : e)),
        heads,
      ).ok,
      false,
    );
  });

  it("events deleted from the end of one chain are caught by that chain's head", () => {
    const { events, heads } = multiChain(threads, 4);
    const lastOfC = events.filter((e) => e.threadId === 'thr_c').at(-1)!;
    const r = verifyAll(
      events.filter((e) => e !== lastOfC),
      heads,
    );
    assert.equal(r.ok, false);
    if (!r.ok) {
      assert.equal(r.brokenAt.chain, lastOfC.chain);
      assert.match(r.brokenAt.problem, /the log ends at event 3 \(log #\d+\) but the recorded head is event 4/);
      assert.equal(
        r.brokenAt.seq,
        events.filter((e) => e.threadId === 'thr_c').at(-2)!.seq,
        'named at an event that exists',
      );
    }
  });

  it('log order going back, and an event in a chain with no head, are refused', () => {
    const { events, heads } = multiChain(threads, 2);
    const back = [...events.slice(0, 5), { ...events[3]!, seq: 2 }];
    const r = verifyAll(back, heads);
    assert.ok(!r.ok && /log order goes back/.test(r.brokenAt.problem));
    const stray = { ...events[0]!, seq: 99, chain: AUDIT_CHAINS + 7 };
    const r2 = verifyAll([...events, stray], heads);
    assert.ok(!r2.ok && /chain \d+ does not exist/.test(r2.brokenAt.problem));
  });

  it('chain 0 (events from before several chains) keeps the original hash form', () => {
    const body: Omit<AuditEvent, 'hash'> = {
      seq: 1,
      chain: 0,
      chainSeq: 1,
      id: 'evt_1',
      type: 'approved',
      actor: 'reviewer:a',
      at: 5,
      threadId: null,
      requestId: null,
      payload: {},
      prevHash: GENESIS_HASH,
    };
    const legacy = {
      seq: 1,
      id: 'evt_1',
      type: 'approved',
      actor: 'reviewer:a',
      at: 5,
      threadId: null,
      requestId: null,
      payload: {},
      prevHash: GENESIS_HASH,
    };
    assert.equal(hashEvent(body), sha256(canonicalJson(legacy)));
    assert.notEqual(hashEvent({ ...body, chain: 1 }), hashEvent(body));
  });

  it('checked against heads kept from an earlier run, a chain rewritten and re-hashed with its head row is caught', () => {
    const { events, heads } = multiChain(threads, 3);
    const kept = verifyAll(events, heads);
    assert.ok(kept.ok && kept.heads);
    const saved = kept.ok ? (kept.heads ?? []) : [];
    // More events later: the saved heads still hold.
    const later = multiChain(threads, 5);
    const more = new AuditVerifier(later.heads, saved);
    for (const e of later.events) more.push(e);
    assert.equal(more.finish().ok, true);

    // Rewrite thread c's chain from its first event on, re-hash it and its head row: consistent on its own.
    const victim = auditChainFor('thr_c');
    const rewritten: AuditEvent[] = [];
    const prev = new Map<number, string>();
    for (const e of later.events) {
      const changed = e.chain === victim && e.threadId === 'thr_c' ? { ...e, actor: 'reviewer:forger' } : { ...e };
      changed.prevHash = prev.get(e.chain) ?? GENESIS_HASH;
      changed.hash = hashEvent(changed);
      prev.set(e.chain, changed.hash);
      rewritten.push(changed);
    }
    const forgedHeads = later.heads.map((h) => (prev.has(h.chain) ? { ...h, hash: prev.get(h.chain)! } : h));
    assert.equal(verifyAll(rewritten, forgedHeads).ok, true, 'without saved heads the rewrite is consistent');
    const checked = new AuditVerifier(forgedHeads, saved);
    for (const e of rewritten) if (!checked.push(e)) break;
    const r = checked.finish();
    assert.equal(r.ok, false);
    if (!r.ok) {
      assert.equal(r.brokenAt.chain, victim);
      assert.match(r.brokenAt.problem, /not the one the saved head names/);
    }

    // A chain cut back below its saved head.
    const cut = new AuditVerifier(
      later.heads.map((h) =>
        h.chain === victim ? { ...h, seq: 1, hash: later.events.find((e) => e.chain === victim)!.hash } : h,
      ),
      saved,
    );
    for (const e of later.events.filter((e) => e.chain !== victim || e.chainSeq === 1)) cut.push(e);
    const rc = cut.finish();
    assert.ok(!rc.ok && /no longer reaches it/.test(rc.brokenAt.problem), JSON.stringify(rc));
  });
});
