import { backoffMs } from '../core/backoff.ts';

/** When and whether a failed delivery is tried again. */
export interface RetryPolicy {
  /** Attempts before the delivery is given up as dead (default 8). */
  maxAttempts: number;
  /** First retry delay (default 2000 ms); it doubles with each attempt. */
  baseDelayMs: number;
  /** Longest delay between attempts (default 10 minutes). */
  maxDelayMs: number;
}

/** 8 attempts, 2 s doubling (2, 4 … 128 s), capped at 10 min: dead about 4 minutes after the first failure. */
export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 8, baseDelayMs: 2_000, maxDelayMs: 600_000 };

/**
 * Delay before the next attempt after `attempts` tries have failed, or null
 * when the delivery is dead: `baseDelayMs * 2^(attempts-1)`, capped.
 * @example
 * retryDelay(1) // 2000   retryDelay(3) // 8000   retryDelay(8) // null
 */
export function retryDelay(attempts: number, policy: RetryPolicy = DEFAULT_RETRY): number | null {
  if (attempts >= policy.maxAttempts) return null;
  return backoffMs(attempts, { baseMs: policy.baseDelayMs, capMs: policy.maxDelayMs, jitter: false });
}
