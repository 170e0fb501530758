import type { ClockSkew, ProcessClocks, StoreClock } from '../types.ts';

export type { ProcessClocks } from '../types.ts';

/** One reading of the database's clock, bracketed by the process's. */
export interface OffsetSample {
  /** Database time minus process time at the midpoint of the round trip, in ms. */
  offsetMs: number;
  /** The round trip; the offset is known to within half of it. */
  roundTripMs: number;
  /** The database's reading, and the monotonic time taken as its moment (the midpoint). */
  dbAt: number;
  monoAt: number;
}

/**
 * The offset of the database's clock from the process's: `samples` readings, keeping the one with
 * the shortest round trip (the least uncertain, as NTP does). `read` answers the database's epoch ms.
 */
export async function measureOffset(
  read: () => Promise<number>,
  clocks: ProcessClocks,
  samples = 3,
): Promise<OffsetSample> {
  let best: OffsetSample | undefined;
  for (let i = 0; i < samples; i++) {
    const w0 = clocks.wall();
    const m0 = clocks.monotonic();
    const db = await read();
    const m1 = clocks.monotonic();
    const w1 = clocks.wall();
    const sample = { offsetMs: db - (w0 + w1) / 2, roundTripMs: m1 - m0, dbAt: db, monoAt: (m0 + m1) / 2 };
    if (!best || sample.roundTripMs < best.roundTripMs) best = sample;
  }
  if (!best) throw new RangeError('measureOffset needs at least one sample');
  return best;
}

/** Options of {@link createDbClock}. */
export interface DbClockOptions {
  /** Reads the database's clock in epoch ms. */
  read: () => Promise<number>;
  clocks: ProcessClocks;
  /** Offset beyond which the process says its clock is off (ms). */
  toleranceMs: number;
  /** How often the offset is measured again (ms, on a monotonic timer); 0: only at start. */
  intervalMs: number;
  /** Where the one warning goes (default `console.warn`). */
  warn?: (message: string) => void;
}

/** A {@link StoreClock} that also starts and stops its measurements. */
export interface DbClock extends StoreClock {
  /** Measure now (and, the first time, start measuring every `intervalMs`); a failure is recorded, then thrown. */
  measure(): Promise<void>;
  stop(): void;
}

/**
 * The database's clock, read from this process: anchored at the last measurement and advanced on the
 * monotonic clock, so neither a skewed process clock nor a step of it between measurements moves it.
 * Until the first measurement succeeds it is the process's wall clock, and reading it (or its skew)
 * starts one, so a store used without `migrate` still gets there. It never runs backwards: a new
 * anchor a little behind the old one (a measurement's uncertainty) holds the time until it catches up.
 */
export function createDbClock(opts: DbClockOptions): DbClock {
  const { clocks, toleranceMs } = opts;
  const warn = opts.warn ?? ((m: string) => console.warn(m));
  let anchor: OffsetSample | undefined;
  let error: string | undefined;
  let last = -Infinity;
  let warned = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;

  const skewed = () => anchor !== undefined && Math.abs(anchor.offsetMs) > toleranceMs;
  function say(sample: OffsetSample): void {
    if (warned || !skewed()) return;
    warned = true;
    const s = Math.round(sample.offsetMs / 100) / 10;
    warn(
      `interlock: this process's clock is ${Math.abs(s)} s ${s < 0 ? 'ahead of' : 'behind'} the database's (tolerance ${toleranceMs / 1000} s). ` +
        `Interlock uses the database's time for leases, expiry and audit times, so nothing goes wrong, but fix the host's time sync (NTP/chrony).`,
    );
  }
  async function once(): Promise<void> {
    try {
      anchor = await measureOffset(opts.read, clocks);
      error = undefined;
    } catch (err) {
      error = (err as Error).message;
      throw err;
    }
    say(anchor);
  }
  function measure(): Promise<void> {
    if (!timer && !stopped && opts.intervalMs > 0) {
      // Also after a failure: a database down at start is measured once it answers. A failed
      // re-measurement keeps the last anchor (the monotonic clock keeps counting) and shows in skew().
      timer = setInterval(() => void measure().catch(() => undefined), opts.intervalMs);
      timer.unref();
    }
    // One measurement at a time: callers arriving meanwhile share it.
    inFlight ??= once().finally(() => (inFlight = undefined));
    return inFlight;
  }
  const startIfUnmeasured = () => {
    if (!anchor && !inFlight && !stopped) void measure().catch(() => undefined);
  };
  return {
    now() {
      // Unmeasured, the wall clock is all there is; the hold against running backwards starts at the first anchor.
      if (!anchor) {
        startIfUnmeasured();
        return clocks.wall();
      }
      last = Math.max(last, Math.round(anchor.dbAt + (clocks.monotonic() - anchor.monoAt)));
      return last;
    },
    skew(): ClockSkew {
      startIfUnmeasured();
      return {
        offsetMs: anchor ? Math.round(anchor.offsetMs) : null,
        roundTripMs: anchor ? Math.round(anchor.roundTripMs) : null,
        toleranceMs,
        skewed: skewed(),
        ...(error !== undefined ? { error } : {}),
      };
    },
    measure,
    stop() {
      stopped = true;
      clearInterval(timer);
      timer = undefined;
    },
  };
}
