import { ConfigError } from './errors.ts';

/** A length of time: milliseconds, or a string such as `"90s"`, `"30m"`, `"24h"`, `"7d"`. */
export type Duration = number | `${number}${'ms' | 's' | 'm' | 'h' | 'd'}`;

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds in a {@link Duration}; throws a ConfigError that says the accepted forms. */
export function toMs(d: Duration, where = 'duration'): number {
  if (typeof d === 'number') {
    if (Number.isFinite(d) && d >= 0) return d;
  } else {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(d);
    if (m) return Math.round(Number(m[1]) * UNITS[m[2]!]!);
  }
  throw new ConfigError(
    `${where}: "${String(d)}" is not a duration. Use milliseconds or a string such as "90s", "30m", "24h", "7d".`,
  );
}

/**
 * The hour and minute of `now` in an IANA time zone, for time-of-day rules.
 * @example timeOfDay(ctx.now, 'Europe/Paris').hour >= 18
 */
export function timeOfDay(now: Date, timeZone = 'UTC'): { hour: number; minute: number; weekday: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hour: 'numeric',
    minute: 'numeric',
    weekday: 'short',
    hourCycle: 'h23',
  }).formatToParts(now);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '0';
  const weekday = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(get('weekday'));
  return { hour: Number(get('hour')), minute: Number(get('minute')), weekday };
}

/** True when `now` falls in [from, to) hours of the day in `timeZone`; windows may wrap midnight. */
export function withinHours(now: Date, from: number, to: number, timeZone = 'UTC'): boolean {
  const { hour, minute } = timeOfDay(now, timeZone);
  const h = hour + minute / 60;
  return from <= to ? h >= from && h < to : h >= from || h < to;
}
