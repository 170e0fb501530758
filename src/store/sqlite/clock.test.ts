import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createSteadyClock } from './clock.ts';

/** A host whose wall clock can be stepped while its monotonic clock only runs forward. */
function host(start = 1_800_000_000_000) {
  let mono = 1000;
  let step = 0;
  return {
    clocks: { wall: () => start + (mono - 1000) + step, monotonic: () => mono },
    advance(ms: number) {
      mono += ms;
    },
    stepWall(ms: number) {
      step += ms;
    },
  };
}

describe('the SQLite store steady clock', () => {
  it('reads the wall clock once, then counts on the monotonic clock', () => {
    const h = host();
    const clock = createSteadyClock({ clocks: h.clocks, toleranceMs: 2000, warn: () => undefined });
    assert.equal(clock.now(), 1_800_000_000_000);
    h.advance(1500);
    assert.equal(clock.now(), 1_800_000_001_500);
    assert.deepEqual(clock.skew(), { offsetMs: 0, roundTripMs: 0, toleranceMs: 2000, skewed: false });
  });

  it('moves with neither a backward nor a forward step of the host clock, and says so once', () => {
    const h = host();
    const warnings: string[] = [];
    const clock = createSteadyClock({ clocks: h.clocks, toleranceMs: 2000, warn: (m) => warnings.push(m) });
    h.advance(100);
    const before = clock.now();
    h.stepWall(-600_000);
    h.advance(100);
    assert.equal(clock.now(), before + 100, 'a backward step of 10 minutes moves nothing');
    assert.deepEqual(clock.skew(), { offsetMs: 600_000, roundTripMs: 0, toleranceMs: 2000, skewed: true });
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /stepped 600 s back/);
    h.stepWall(3_600_000 + 600_000);
    h.advance(100);
    assert.equal(clock.now(), before + 200, 'a forward step of an hour expires nothing early');
    assert.equal(clock.skew().offsetMs, -3_600_000);
    assert.equal(warnings.length, 1, 'one warning per process');
  });

  it('stays quiet for steps within the tolerance', () => {
    const h = host();
    const warnings: string[] = [];
    const clock = createSteadyClock({ clocks: h.clocks, toleranceMs: 2000, warn: (m) => warnings.push(m) });
    h.stepWall(-1500);
    assert.equal(clock.skew().skewed, false);
    assert.deepEqual(warnings, []);
  });
});
