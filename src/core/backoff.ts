/**
 * Exponential backoff, the one formula every retry in Interlock uses (job retries,
 * notification deliveries): `baseMs * 2^(attempt-1)`, capped at `capMs`.
 * `attempt` is 1-based: the delay before the retry that follows the first failure is `baseMs`.
 * With `jitter`, the delay is spread ±25% so many retries of one failure do not arrive together.
 * @example
 * backoffMs(1) // ≈1000   backoffMs(3) // ≈4000   backoffMs(3, { jitter: false }) // 4000
 */
export function backoffMs(
  attempt: number,
  opts: { baseMs?: number; capMs?: number; jitter?: boolean } | number = {},
  capMs?: number,
): number {
  // The positional form (attempt, baseMs, capMs) is kept for existing callers.
  const o = typeof opts === 'number' ? { baseMs: opts, ...(capMs === undefined ? {} : { capMs }) } : opts;
  const exp = Math.min(o.capMs ?? 600_000, (o.baseMs ?? 1000) * 2 ** Math.max(0, attempt - 1));
  return o.jitter === false ? exp : Math.round(exp * (0.75 + Math.random() * 0.5));
}
