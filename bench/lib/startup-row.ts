/**
 * One start-up row (bench/cli-startup.ts, bench/process-startup.ts): the median of whole-process
 * starts against `node -e ''` timed alternately in the same run, and the target.
 */
import { loadAverage } from './machine';
import { fmt, type BenchRow } from './report';

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export function startupRow(
  figure: string,
  times: number[],
  nodeAlone: number[],
  targetMs: number,
  note: string,
): BenchRow {
  const m = median(times);
  const a = median(nodeAlone);
  return {
    figure,
    value: `median ${fmt(m)} ms (max ${fmt(Math.max(...times))} ms)`,
    target: `≤ ${fmt(targetMs)} ms`,
    baseline: `node -e '' median ${fmt(a)} ms`,
    ratio: `${fmt(m / a, 2)} ×; +${fmt(m - a)} ms over Node alone`,
    ok: m <= targetMs,
    load: loadAverage(),
    note,
  };
}
