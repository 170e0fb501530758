import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GENESIS_HASH, hashEvent, type AuditEvent } from './audit-chain.ts';
import { AuditVerifier, MAX_FINDINGS, type ChainVerification } from './audit-verify.ts';

const T0 = Date.parse('2026-01-05T10:00:00Z');

/** A log of `times.length` events spread over `chains` chains (event i in chain i % chains + 1), hashed as a store does. */
function log(times: readonly number[], chains = 1): AuditEvent[] {
  const prev = new Map<number, { pos: number; hash: string }>();
  return times.map((at, i) => {
    const chain = (i % chains) + 1;
    const p = prev.get(chain) ?? { pos: 0, hash: GENESIS_HASH };
    const body: Omit<AuditEvent, 'hash'> = {
      seq: i + 1,
      chain,
      chainSeq: p.pos + 1,
      id: `evt_${i + 1}`,
      type: 'approved',
      actor: 'reviewer:sam',
      at,
      threadId: 'thr_1',
      requestId: null,
      payload: { i },
      prevHash: p.hash,
    };
    const e = { ...body, hash: hashEvent(body) };
    prev.set(chain, { pos: e.chainSeq, hash: e.hash });
    return e;
  });
}

function verify(events: readonly AuditEvent[], opts: { clockToleranceMs?: number } = {}): ChainVerification {
  const heads = new Map<number, { chain: number; seq: number; hash: string }>();
  for (const e of events) heads.set(e.chain, { chain: e.chain, seq: e.chainSeq, hash: e.hash });
  const v = new AuditVerifier([...heads.values()], [], opts);
  for (const e of events) if (!v.push(e)) break;
  return v.finish();
}

describe('audit verify: time running backwards along a chain', () => {
  it('a chain whose times only move forward has no findings', () => {
    const r = verify(log([T0, T0 + 1, T0 + 1, T0 + 5000]));
    assert.equal(r.ok, true);
    assert.equal(r.findings, undefined);
  });

  it('a 10-minute backward step is a finding, naming the event and how far back, and verification still passes', () => {
    const r = verify(log([T0, T0 + 1000, T0 + 2000 - 600_000, T0 + 3000 - 600_000]));
    assert.equal(r.ok, true, 'the hashes link: nothing was tampered with');
    assert.deepEqual(r.findings, {
      total: 1,
      first: [
        {
          kind: 'time_backwards',
          seq: 3,
          id: 'evt_3',
          chain: 1,
          at: T0 + 2000 - 600_000,
          previousSeq: 2,
          previousAt: T0 + 1000,
          backMs: 599_000,
        },
      ],
    });
  });

  it('within the tolerance (commits of several processes landing a little out of time order) is no finding', () => {
    assert.equal(verify(log([T0, T0 + 1000, T0 + 400])).findings, undefined);
    assert.equal(verify(log([T0, T0 + 1000, T0 + 400]), { clockToleranceMs: 100 }).findings?.total, 1);
  });

  it('compares times within a chain, not across chains interleaved in the log', () => {
    // Chain 1 at T0+1h (a skewed process), chain 2 at T0: alternating in the log, each chain moves forward.
    const times = Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? T0 + 3_600_000 : T0) + i);
    const r = verify(log(times, 2));
    assert.equal(r.ok, true);
    assert.equal(r.findings, undefined);
  });

  it('counts every finding but lists the first ones, in log order', () => {
    const times = Array.from({ length: 2 * MAX_FINDINGS + 10 }, (_, i) => T0 + (i % 2 === 0 ? 600_000 : 0) + i);
    const r = verify(log(times));
    assert.equal(r.findings?.total, MAX_FINDINGS + 5);
    assert.equal(r.findings?.first.length, MAX_FINDINGS);
    assert.deepEqual(
      r.findings?.first.slice(0, 2).map((f) => f.seq),
      [2, 4],
    );
  });

  it('a broken chain still fails, and carries the findings seen before the break', () => {
    const events = log([T0, T0 - 600_000, T0 - 599_000]);
    events[2] = { ...events[2]!, actor: 'reviewer:mallory' };
    const r = verify(events);
    assert.equal(r.ok, false);
    assert.equal(r.findings?.total, 1);
  });
});
