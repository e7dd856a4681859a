import type { CriterionResult } from './types';

/** Scores are reported with two decimals (66.666… → 66.67). */
export function roundScore(score: number): number {
  const clamped = Math.min(100, Math.max(0, score));
  return Math.round(clamped * 100) / 100;
}

/** Weighted mean of the criteria scores, 0..100. */
export function weightedScore(criteria: readonly Pick<CriterionResult, 'weight' | 'score'>[]): number {
  const totalWeight = criteria.reduce((sum, criterion) => sum + criterion.weight, 0);
  if (totalWeight <= 0) return 0;
  const earned = criteria.reduce((sum, criterion) => sum + criterion.weight * criterion.score, 0);
  return roundScore(earned / totalWeight);
}

/**
 * The public score (every criterion that is not private) and the private one (the private ones
 * only; null when there are none). A board during the contest uses the first only.
 */
export function splitScores(criteria: readonly Pick<CriterionResult, 'weight' | 'score' | 'private'>[]): {
  score: number;
  privateScore: number | null;
} {
  const open = criteria.filter((criterion) => criterion.private !== true);
  const held = criteria.filter((criterion) => criterion.private === true);
  return { score: weightedScore(open), privateScore: held.length > 0 ? weightedScore(held) : null };
}
