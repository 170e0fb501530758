// The clock every process sharing a database reads: see Store.clock.
/** How far this process's clock is from the store's (see {@link StoreClock}). */
export interface ClockSkew {
  /** Store time minus the process's wall clock, in ms; null until first measured. */
  offsetMs: number | null;
  /** Round trip of that measurement: the offset is known to within half of it. */
  roundTripMs: number | null;
  /** Offset beyond which the process says its clock is off. */
  toleranceMs: number;
  /** The offset is beyond the tolerance (corrected, but the host's time sync needs fixing). */
  skewed: boolean;
  /** Why the last measurement failed, when it did (the last good one stays in force). */
  error?: string;
}

/**
 * The engine's clock, from the store: on PostgreSQL the database's, read from this process (one clock for
 * every process sharing it); on SQLite the one process's, made steady against steps of the host's clock.
 */
export interface StoreClock {
  /** The time now, in epoch ms; never runs backwards once measured. */
  now(): number;
  skew(): ClockSkew;
}

/** The clocks a store's clock reads (PostgreSQL's `createDbClock`, SQLite's `createSteadyClock`): the process's wall clock and a monotonic one. */
export interface ProcessClocks {
  /** Wall clock in epoch ms (default `Date.now`); only the reported offset depends on it. */
  wall: () => number;
  /** Monotonic ms (default `performance.now`): time between measurements is counted on it. */
  monotonic: () => number;
}
