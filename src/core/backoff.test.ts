import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { backoffMs } from './backoff.ts';

describe('backoffMs', () => {
  it('doubles from the base and stops at the cap', () => {
    assert.deepEqual(
      [1, 2, 3, 4].map((a) => backoffMs(a, { baseMs: 100, jitter: false })),
      [100, 200, 400, 800],
    );
    assert.equal(backoffMs(30, { baseMs: 100, capMs: 5000, jitter: false }), 5000);
    assert.equal(backoffMs(0, { baseMs: 100, jitter: false }), 100, 'attempt 0 is treated as the first');
  });

  it('jitter stays within ±25% of the exact delay', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 10_000 }), (attempt, baseMs) => {
        const exact = backoffMs(attempt, { baseMs, jitter: false });
        const d = backoffMs(attempt, { baseMs });
        return d >= Math.floor(exact * 0.75) && d <= Math.ceil(exact * 1.25);
      }),
    );
  });

  it('keeps the positional form (attempt, baseMs, capMs)', () => {
    const d = backoffMs(3, 1000, 2000);
    assert.ok(d >= 1500 && d <= 2500);
  });
});
