/** Delay before retry `attempt` (1-based): exponential from `baseMs`, capped, with jitter so retries spread out. */
export function backoffMs(attempt: number, baseMs = 1000, capMs = 600_000): number {
  const exp = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exp * (0.75 + Math.random() * 0.5));
}
