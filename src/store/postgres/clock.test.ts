import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createDbClock, measureOffset } from './clock.ts';

/** A fake world: a database clock and a process clock that differ by `offset`, and reads that take `trips` ms in turn. */
function world(offset: number, trips: number[]) {
  let mono = 1000;
  const wallBase = 1_700_000_000_000;
  const clocks = { wall: () => wallBase + mono, monotonic: () => mono };
  let i = 0;
  const read = async () => {
    const trip = trips[i++ % trips.length]!;
    // The server reads its clock after the request's way there: the first half of the round trip.
    mono += trip / 2;
    const db = wallBase + mono + offset;
    mono += trip / 2;
    return db;
  };
  return { clocks, read, advance: (ms: number) => (mono += ms) };
}

describe('measureOffset', () => {
  it('finds the offset of the database clock at the midpoint of the round trip', async () => {
    const w = world(-3_600_000, [40]);
    const s = await measureOffset(w.read, w.clocks, 1);
    assert.equal(s.offsetMs, -3_600_000);
    assert.equal(s.roundTripMs, 40);
  });

  it('keeps the sample with the shortest round trip', async () => {
    const w = world(250, [90, 10, 60]);
    const s = await measureOffset(w.read, w.clocks, 3);
    assert.equal(s.roundTripMs, 10);
    assert.equal(s.offsetMs, 250);
  });

  it('an asymmetric round trip puts the error within half of it', async () => {
    // The server answers at the very end of a 100 ms round trip: the estimate is off by 50 ms, no more.
    const clocks = { wall: () => 5000 + mono, monotonic: () => mono };
    let mono = 0;
    const read = async () => {
      mono += 100;
      return 5000 + mono + 700;
    };
    const s = await measureOffset(read, clocks, 1);
    assert.equal(s.offsetMs, 750);
    assert.ok(Math.abs(s.offsetMs - 700) <= s.roundTripMs / 2);
  });
});

describe('createDbClock', () => {
  it("gives the database's time, advancing on the monotonic clock, and says once that the process is off", async () => {
    const w = world(-3_600_000, [20]);
    const warnings: string[] = [];
    const clock = createDbClock({
      read: w.read,
      clocks: w.clocks,
      toleranceMs: 2000,
      intervalMs: 0,
      warn: (m) => warnings.push(m),
    });
    await clock.measure();
    assert.equal(clock.now(), w.clocks.wall() - 3_600_000);
    w.advance(5000);
    assert.equal(clock.now(), w.clocks.wall() - 3_600_000);
    await clock.measure();
    assert.equal(warnings.length, 1, 'one warning, not one per measurement');
    assert.match(warnings[0]!, /3600 s ahead of the database's/);
    assert.deepEqual(clock.skew(), { offsetMs: -3_600_000, roundTripMs: 20, toleranceMs: 2000, skewed: true });
  });

  it('unmeasured, it is the process clock, and reading it starts one measurement (shared by all callers)', async () => {
    let reads = 0;
    let answer!: (t: number) => void;
    const clock = createDbClock({
      read: () => {
        reads++;
        return new Promise<number>((r) => (answer = r));
      },
      clocks: { wall: () => 10_000, monotonic: () => 0 },
      toleranceMs: 2000,
      intervalMs: 0,
      warn: () => undefined,
    });
    assert.equal(clock.now(), 10_000, 'before a measurement, the process clock');
    assert.equal(clock.skew().offsetMs, null);
    const measured = clock.measure();
    assert.equal(reads, 1, 'one read in flight, not one per caller');
    answer(4000);
    // The best of three samples: answer the other two the same.
    for (let i = 0; i < 2; i++) {
      await new Promise((r) => setImmediate(r));
      answer(4000);
    }
    await measured;
    assert.equal(reads, 3);
    assert.equal(clock.now(), 4000);
    assert.equal(clock.skew().offsetMs, -6000);
  });

  it('a process clock step between measurements moves nothing; a process within tolerance says nothing', async () => {
    const w = world(300, [20]);
    let step = 0;
    const clocks = { wall: () => w.clocks.wall() + step, monotonic: w.clocks.monotonic };
    const warnings: string[] = [];
    const clock = createDbClock({
      read: w.read,
      clocks,
      toleranceMs: 2000,
      intervalMs: 0,
      warn: (m) => warnings.push(m),
    });
    await clock.measure();
    const before = clock.now();
    step = -600_000; // an NTP step back by 10 minutes
    w.advance(1000);
    assert.equal(clock.now(), before + 1000);
    assert.equal(clock.skew().skewed, false);
    assert.deepEqual(warnings, []);
  });

  it('never runs backwards when a new measurement anchors it a little earlier', async () => {
    let offset = 500;
    let mono = 0;
    const clocks = { wall: () => mono, monotonic: () => mono };
    const clock = createDbClock({
      read: async () => mono + offset,
      clocks,
      toleranceMs: 2000,
      intervalMs: 0,
    });
    await clock.measure();
    const t = clock.now();
    offset = 200; // the next estimate is 300 ms earlier
    await clock.measure();
    assert.equal(clock.now(), t, 'held, not set back');
    mono += 400;
    assert.equal(clock.now(), 600);
  });

  it('a failed measurement is reported and keeps the last anchor', async () => {
    let fail = false;
    let mono = 0;
    const clock = createDbClock({
      read: async () => {
        if (fail) throw new Error('connection refused');
        return mono + 100;
      },
      clocks: { wall: () => mono, monotonic: () => mono },
      toleranceMs: 2000,
      intervalMs: 0,
    });
    await clock.measure();
    fail = true;
    await assert.rejects(clock.measure(), /connection refused/);
    mono += 50;
    assert.equal(clock.now(), 150);
    assert.deepEqual(clock.skew(), {
      offsetMs: 100,
      roundTripMs: 0,
      toleranceMs: 2000,
      skewed: false,
      error: 'connection refused',
    });
  });
});
