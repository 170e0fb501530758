/** Latency samples and their summary. */

/** p-th percentile (0..100) of samples, nearest-rank. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export interface Summary {
  n: number;
  p50: number;
  p99: number;
  mean: number;
  max: number;
}

/** Summarize latencies in milliseconds. */
export function summarize(samples: readonly number[]): Summary {
  const s = [...samples].sort((a, b) => a - b);
  const sum = s.reduce((a, b) => a + b, 0);
  return {
    n: s.length,
    p50: percentile(s, 50),
    p99: percentile(s, 99),
    mean: s.length ? sum / s.length : Number.NaN,
    max: s[s.length - 1] ?? Number.NaN,
  };
}

/** Milliseconds since `t0` (performance.now()). */
export function since(t0: number): number {
  return performance.now() - t0;
}

/** Run `workers` loops that each take items from a shared counter until `total` are done. */
export async function inFlight(
  workers: number,
  total: number,
  fn: (i: number, worker: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      for (let i = next++; i < total; i = next++) await fn(i, w);
    }),
  );
}

/** Round for display: 3 significant digits, no exponent. */
export function fmt(n: number | null | undefined, digits = 3): string {
  if (n === null || n === undefined || Number.isNaN(n)) return '—';
  if (n === 0) return '0';
  const a = Math.abs(n);
  if (a >= 10 ** digits) return Math.round(n).toLocaleString('en-US');
  return Number(n.toPrecision(digits)).toString();
}

/** `a / b` formatted as a multiple (`2.5×`). */
export function ratio(a: number | null | undefined, b: number | null | undefined): string {
  if (a === null || a === undefined || b === null || b === undefined || !b || Number.isNaN(a) || Number.isNaN(b))
    return '—';
  return `${fmt(a / b)}×`;
}
