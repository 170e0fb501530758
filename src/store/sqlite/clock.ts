import type { ClockSkew, ProcessClocks, StoreClock } from '../types.ts';

/** Options of {@link createSteadyClock}. */
export interface SteadyClockOptions {
  clocks: ProcessClocks;
  /** How far the host's wall clock may step away before the process says so (ms). */
  toleranceMs: number;
  /** Where the one warning goes (default `console.warn`). */
  warn?: (message: string) => void;
}

/**
 * The engine's time when one process owns the database (SQLite): the wall clock read once, at start,
 * then advanced on the monotonic clock only. A step of the host's clock afterwards (an NTP correction,
 * an operator's `date -s`) moves none of it, in either direction: a lease or a job's `runAt` set just
 * before a backward step is not pushed the step's length into the future, and a forward step expires
 * nothing early. The price is that the engine keeps the time it had until the process restarts; how far
 * that is from the host's clock is reported (`skew()`: offset, the one warning, `/readyz`, metrics).
 * The monotonic clock is rate-corrected by NTP on Linux, so only steps, not drift, open that gap.
 */
export function createSteadyClock(opts: SteadyClockOptions): StoreClock {
  const { clocks, toleranceMs } = opts;
  const warn = opts.warn ?? ((m: string) => console.warn(m));
  const wallAt = clocks.wall();
  const monoAt = clocks.monotonic();
  let warned = false;
  const now = () => Math.round(wallAt + (clocks.monotonic() - monoAt));
  /** Engine time minus the host's wall clock now: the steps the host's clock took since start. */
  const offset = (): number => now() - clocks.wall();
  const check = (offsetMs: number): boolean => {
    const skewed = Math.abs(offsetMs) > toleranceMs;
    if (skewed && !warned) {
      warned = true;
      const s = Math.round(offsetMs / 100) / 10;
      warn(
        `interlock: the host's clock stepped ${Math.abs(s)} s ${s > 0 ? 'back' : 'forward'} since this process started (tolerance ${toleranceMs / 1000} s). ` +
          `Interlock keeps counting time from its start on a monotonic clock, so no lease, timeout or rate limit jumps, ` +
          `but new records carry that offset until the service restarts: fix the host's time sync (NTP/chrony) and restart it when convenient.`,
      );
    }
    return skewed;
  };
  return {
    now,
    skew(): ClockSkew {
      const offsetMs = offset();
      return { offsetMs, roundTripMs: 0, toleranceMs, skewed: check(offsetMs) };
    },
  };
}
