// The clock every process sharing a database reads: see Store.clock.
/** How far this process's clock is from the database's (see {@link StoreClock}). */
export interface ClockSkew {
  /** Database time minus process time, in ms; null until first measured. */
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

/** One clock for every process sharing a database: the database's, read from this process. */
export interface StoreClock {
  /** The database's time now, in epoch ms; never runs backwards once measured. */
  now(): number;
  skew(): ClockSkew;
}
