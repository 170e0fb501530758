/** A clock tests move by hand: `now()` for the engine, `advance(ms)` to pass time. */
export interface ManualClock {
  now: () => number;
  advance(ms: number): void;
  set(ms: number): void;
}

/** A manual clock starting at `start` (default 2026-01-05T10:00:00Z, a Monday). */
export function manualClock(start = Date.UTC(2026, 0, 5, 10, 0, 0)): ManualClock {
  let t = start;
  return {
    now: () => t,
    advance(ms) {
      t += ms;
    },
    set(ms) {
      t = ms;
    },
  };
}
