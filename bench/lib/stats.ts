/** Percentiles and summaries of latency samples (milliseconds). */

export interface LatencySummary {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentile of an ascending array (p in 0..100). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function summarize(samples: number[]): LatencySummary {
  const sorted = Float64Array.from(samples).sort();
  const arr = Array.from(sorted);
  const sum = arr.reduce((a, b) => a + b, 0);
  return {
    count: arr.length,
    mean: arr.length ? sum / arr.length : NaN,
    p50: percentile(arr, 50),
    p90: percentile(arr, 90),
    p99: percentile(arr, 99),
    max: arr.length ? arr[arr.length - 1] : NaN,
  };
}

export const round = (n: number, digits = 1): number =>
  Number.isFinite(n) ? Math.round(n * 10 ** digits) / 10 ** digits : n;
