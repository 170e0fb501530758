import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRateLimiter } from './rate-limit.ts';

const TEN_MINUTES = 10 * 60_000;

describe('rate limiter: a wall clock that jumps', () => {
  it('refuses nobody when the wall clock steps back 10 minutes (NTP correction)', (t) => {
    let wall = Date.UTC(2026, 0, 5, 10, 0, 0);
    t.mock.method(Date, 'now', () => wall);
    const limiter = createRateLimiter({ capacity: 3, windowMs: 10_000 });
    // Active reviewers before the step.
    assert.equal(limiter.take('sam'), 0);
    assert.equal(limiter.take('kim'), 0);
    wall -= TEN_MINUTES;
    for (const who of ['sam', 'kim', 'sam', 'kim'])
      assert.equal(limiter.take(who), 0, `${who} is within their burst and must not be refused`);
  });

  it('an injected clock that runs backwards refills nothing and refuses nobody within the burst', () => {
    let t = 1_000_000;
    const limiter = createRateLimiter({ capacity: 2, windowMs: 1000, now: () => t });
    assert.equal(limiter.take('sam'), 0);
    t -= TEN_MINUTES;
    assert.equal(limiter.take('sam'), 0, 'one token was left');
    assert.ok(limiter.take('sam') > 0, 'the burst is spent: refused, and no negative time refilled it');
    t += 1000;
    assert.equal(limiter.take('sam'), 0, 'time moving forward again refills');
  });

  it('still limits: a burst past capacity is refused with the wait until the next token', () => {
    let t = 0;
    const limiter = createRateLimiter({ capacity: 2, windowMs: 1000, now: () => t });
    assert.equal(limiter.take('a'), 0);
    assert.equal(limiter.take('a'), 0);
    assert.equal(limiter.take('a'), 500);
    t += 500;
    assert.equal(limiter.take('a'), 0);
  });
});
