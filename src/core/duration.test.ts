import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { timeOfDay, toMs, withinHours, type Duration } from './duration.ts';
import { ConfigError } from './errors.ts';

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
type Unit = keyof typeof UNIT_MS;
const UNITS = Object.keys(UNIT_MS) as Unit[];

describe('toMs', () => {
  it('passes milliseconds through', () => {
    assert.equal(toMs(0), 0);
    assert.equal(toMs(1500), 1500);
    assert.equal(toMs(0.5), 0.5);
  });

  it('reads each unit', () => {
    assert.equal(toMs('250ms'), 250);
    assert.equal(toMs('90s'), 90_000);
    assert.equal(toMs('30m'), 1_800_000);
    assert.equal(toMs('24h'), 86_400_000);
    assert.equal(toMs('7d'), 604_800_000);
    assert.equal(toMs('0s'), 0);
  });

  it('reads decimals and rounds to whole milliseconds', () => {
    assert.equal(toMs('1.5h'), 5_400_000);
    assert.equal(toMs('0.25s'), 250);
    assert.equal(toMs('1.0005s'), 1001);
    assert.equal(toMs('0.4ms'), 0);
  });

  it('does not confuse "m" (minutes) with "ms"', () => {
    assert.equal(toMs('5m'), 300_000);
    assert.equal(toMs('5ms'), 5);
  });

  it('refuses anything else with a ConfigError that names the place and the accepted forms', () => {
    const bad: unknown[] = [
      -1,
      NaN,
      Infinity,
      -Infinity,
      '',
      '30',
      'm',
      '30 m',
      ' 30m',
      '30m ',
      '30M',
      '1w',
      '-5m',
      '+5m',
      '1e3s',
      '.5s',
      '5.s',
      '1h30m',
      'soon',
    ];
    for (const d of bad) {
      assert.throws(
        () => toMs(d as Duration, 'rules.refund timeout'),
        (err: unknown) => {
          assert.ok(err instanceof ConfigError, String(d));
          assert.equal(err.code, 'invalid_config');
          assert.match(
            err.message,
            /^rules\.refund timeout: ".*" is not a duration\. Use milliseconds or a string such as "90s", "30m", "24h", "7d"\.$/,
          );
          return true;
        },
        JSON.stringify(d) ?? String(d),
      );
    }
  });

  it('says "duration" when no place is given', () => {
    assert.throws(() => toMs('later' as Duration), /^ConfigError: duration: "later" is not a duration/);
  });

  it('n followed by a unit is n times the unit (property)', () => {
    fc.assert(
      fc.property(fc.nat({ max: 1_000_000 }), fc.constantFrom(...UNITS), (n, unit) => {
        assert.equal(toMs(`${n}${unit}`), n * UNIT_MS[unit]);
      }),
    );
  });

  it('is monotonic in the number for each unit (property)', () => {
    fc.assert(
      fc.property(fc.nat({ max: 100_000 }), fc.nat({ max: 100_000 }), fc.constantFrom(...UNITS), (a, b, unit) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        assert.ok(toMs(`${lo / 100}${unit}`) <= toMs(`${hi / 100}${unit}`));
      }),
    );
  });

  it('any non-negative finite number of milliseconds is itself (property)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }), (n) => {
        assert.equal(toMs(n), n);
      }),
    );
  });
});

describe('timeOfDay', () => {
  it('defaults to UTC', () => {
    assert.deepEqual(timeOfDay(new Date('2024-01-15T17:05:00Z')), { hour: 17, minute: 5, weekday: 1 });
  });

  it('reads midnight as hour 0, not 24', () => {
    assert.deepEqual(timeOfDay(new Date('2024-01-14T00:00:00Z')), { hour: 0, minute: 0, weekday: 0 });
    assert.deepEqual(timeOfDay(new Date('2024-01-14T23:00:00Z'), 'Europe/Paris'), { hour: 0, minute: 0, weekday: 1 });
  });

  it('follows the time zone, including daylight saving time', () => {
    assert.deepEqual(timeOfDay(new Date('2024-01-15T17:30:00Z'), 'Europe/Paris'), { hour: 18, minute: 30, weekday: 1 });
    assert.deepEqual(timeOfDay(new Date('2024-07-15T17:30:00Z'), 'Europe/Paris'), { hour: 19, minute: 30, weekday: 1 });
    assert.deepEqual(timeOfDay(new Date('2024-01-15T03:30:00Z'), 'America/New_York'), {
      hour: 22,
      minute: 30,
      weekday: 0,
    });
    assert.deepEqual(timeOfDay(new Date('2024-01-15T12:00:00Z'), 'Asia/Kolkata'), { hour: 17, minute: 30, weekday: 1 });
  });

  it('numbers weekdays from Sunday = 0 to Saturday = 6', () => {
    // 2024-01-14 was a Sunday.
    for (let d = 0; d < 7; d++) {
      const date = new Date(Date.UTC(2024, 0, 14 + d, 12));
      assert.equal(timeOfDay(date).weekday, d);
    }
  });

  it('matches the UTC getters for any instant (property)', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1971-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }),
        (date) => {
          assert.deepEqual(timeOfDay(date, 'UTC'), {
            hour: date.getUTCHours(),
            minute: date.getUTCMinutes(),
            weekday: date.getUTCDay(),
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses an unknown time zone', () => {
    assert.throws(() => timeOfDay(new Date(), 'Mars/Olympus_Mons'), RangeError);
  });
});

describe('withinHours', () => {
  const utc = (hhmm: string) => new Date(`2024-01-15T${hhmm}:00Z`);

  it('is a half-open window [from, to)', () => {
    assert.equal(withinHours(utc('08:59'), 9, 17), false);
    assert.equal(withinHours(utc('09:00'), 9, 17), true);
    assert.equal(withinHours(utc('12:00'), 9, 17), true);
    assert.equal(withinHours(utc('16:59'), 9, 17), true);
    assert.equal(withinHours(utc('17:00'), 9, 17), false);
  });

  it('wraps past midnight when from > to', () => {
    assert.equal(withinHours(utc('21:59'), 22, 6), false);
    assert.equal(withinHours(utc('22:00'), 22, 6), true);
    assert.equal(withinHours(utc('23:30'), 22, 6), true);
    assert.equal(withinHours(utc('00:00'), 22, 6), true);
    assert.equal(withinHours(utc('05:59'), 22, 6), true);
    assert.equal(withinHours(utc('06:00'), 22, 6), false);
    assert.equal(withinHours(utc('12:00'), 22, 6), false);
  });

  it('accepts fractional hours', () => {
    assert.equal(withinHours(utc('09:29'), 9.5, 17.5), false);
    assert.equal(withinHours(utc('09:30'), 9.5, 17.5), true);
    assert.equal(withinHours(utc('17:29'), 9.5, 17.5), true);
    assert.equal(withinHours(utc('17:30'), 9.5, 17.5), false);
  });

  it('0 to 24 is the whole day; an empty window (from = to) is never', () => {
    for (const t of ['00:00', '12:00', '23:59']) {
      assert.equal(withinHours(utc(t), 0, 24), true, t);
      assert.equal(withinHours(utc(t), 9, 9), false, t);
    }
  });

  it('reads the hour in the given time zone', () => {
    // 08:30 UTC is 09:30 in Paris in winter, 10:30 in summer, 03:30 in New York.
    assert.equal(withinHours(utc('08:30'), 9, 17, 'Europe/Paris'), true);
    assert.equal(withinHours(utc('08:30'), 9, 17, 'UTC'), false);
    assert.equal(withinHours(utc('08:30'), 9, 17, 'America/New_York'), false);
    assert.equal(withinHours(new Date('2024-07-15T15:30:00Z'), 9, 17, 'Europe/Paris'), false);
  });

  it('a window and its complement partition the day (property)', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2050-01-01T00:00:00Z'), noInvalidDate: true }),
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 23 }),
        fc.constantFrom('UTC', 'Europe/Paris', 'America/Los_Angeles', 'Asia/Tokyo'),
        (now, from, to, tz) => {
          fc.pre(from !== to);
          assert.notEqual(withinHours(now, from, to, tz), withinHours(now, to, from, tz));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('agrees with the hour of the day in UTC (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 24 * 60 - 1 }),
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 24 }),
        (minuteOfDay, from, to) => {
          const now = new Date(Date.UTC(2024, 0, 15, 0, minuteOfDay));
          const h = minuteOfDay / 60;
          const expected = from <= to ? h >= from && h < to : h >= from || h < to;
          assert.equal(withinHours(now, from, to), expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
