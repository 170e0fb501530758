import { performance } from 'node:perf_hooks';
import { ConfigError } from '../core/index.ts';

/** Options of {@link createRateLimiter}: `capacity` actions per `windowMs`, refilled smoothly. */
export interface RateLimitOptions {
  capacity: number;
  windowMs: number;
  /**
   * Clock in ms that only moves forward (default `performance.now`). A wall clock would refuse every
   * active key for the length of a backward step (an NTP correction); time that runs backwards anyway
   * refills nothing and takes nothing.
   */
  now?: () => number;
}

/** Per-key token buckets, in memory (one process). */
export interface RateLimiter {
  /** Spend one token of `key`'s bucket: `0` when allowed, else the milliseconds until one is available. */
  take(key: string): number;
}

const MAX_KEYS = 10_000;

/**
 * A token bucket per key: a burst of `capacity`, refilled at `capacity / windowMs`.
 * @example
 * const limiter = createRateLimiter({ capacity: 30, windowMs: 10_000 });
 * if (limiter.take(reviewerId) > 0) // refuse with 429
 */
export function createRateLimiter(opts: RateLimitOptions): RateLimiter {
  if (!(opts.capacity >= 1) || !(opts.windowMs > 0)) {
    throw new ConfigError(
      'rateLimit needs { capacity: >= 1, windowMs: > 0 }, e.g. { capacity: 30, windowMs: 10000 }.',
      { capacity: opts.capacity, windowMs: opts.windowMs },
    );
  }
  const now = opts.now ?? (() => performance.now());
  const perMs = opts.capacity / opts.windowMs;
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(key) {
      const t = now();
      let b = buckets.get(key);
      if (!b) {
        // Keep memory bounded: buckets that have refilled completely carry no information.
        if (buckets.size >= MAX_KEYS) {
          for (const [k, old] of buckets)
            if (old.tokens + Math.max(0, t - old.at) * perMs >= opts.capacity) buckets.delete(k);
        }
        b = { tokens: opts.capacity, at: t };
        buckets.set(key, b);
      }
      b.tokens = Math.min(opts.capacity, b.tokens + Math.max(0, t - b.at) * perMs);
      b.at = t;
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return 0;
      }
      return Math.ceil((1 - b.tokens) / perMs);
    },
  };
}
