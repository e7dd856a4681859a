/**
 * The two passes of a judging (DESIGN, "Fifth-round extensions": private tests and criteria run in
 * a pass of their own after the public result; docs/decisions/judging.md, "The private pass"):
 * the public pass judges the tests or criteria that are not private and makes the submission
 * `complete`; the private pass judges the private ones later, so that nothing a competitor can
 * time holds a private test. Pure: which items each pass judges and how the two outcomes become
 * the one stored breakdown.
 */
import type { JudgeConfig } from './config';
import type { CriterionResult, JudgeOutcome } from './types';
import { weightedScore } from './scoring';

export type JudgePass = 'public' | 'private';

/** What every test or criterion has. */
interface JudgedItem {
  name: string;
  weight: number;
  hidden: boolean;
  private: boolean;
}

/** The items a judge scores one by one (tests or criteria), in config order; null for judges without private items. */
function itemsOf(config: JudgeConfig): readonly JudgedItem[] | null {
  switch (config.kind) {
    case 'tests':
    case 'program':
      return config.tests;
    case 'rubric':
      return config.criteria;
    default:
      return null;
  }
}

/** Whether the config has a private test or criterion, i.e. whether a private pass follows the public one. */
export function hasPrivatePass(config: JudgeConfig): boolean {
  return itemsOf(config)?.some((item) => item.private) ?? false;
}

/** The config one pass judges: only the public items, or only the private ones. */
export function configForPass(config: JudgeConfig, pass: JudgePass): JudgeConfig {
  const keep = <T extends { private: boolean }>(items: T[]) =>
    items.filter((item) => item.private === (pass === 'private'));
  switch (config.kind) {
    case 'tests':
      return { ...config, tests: keep(config.tests) };
    case 'program':
      return { ...config, tests: keep(config.tests) };
    case 'rubric':
      return { ...config, criteria: keep(config.criteria) };
    default:
      return config;
  }
}

/** Takes from `open` or `held` in the config's order of public and private items. */
function interleave<T>(config: JudgeConfig | null, open: readonly T[], held: readonly T[]): T[] {
  const items = (config && itemsOf(config)) ?? [];
  let nextOpen = 0;
  let nextHeld = 0;
  const merged: T[] = [];
  for (const item of items) {
    const value = item.private ? held[nextHeld++] : open[nextOpen++];
    if (value !== undefined) merged.push(value);
  }
  // Anything beyond the config's items (a config edited between the passes) is kept, not lost.
  merged.push(...open.slice(nextOpen), ...held.slice(nextHeld));
  return merged;
}

const testsOf = (outcome: Pick<JudgeOutcome, 'details'>): unknown[] =>
  Array.isArray(outcome.details?.tests) ? (outcome.details.tests as unknown[]) : [];

/**
 * The stored breakdown once the private pass is done: the public outcome (its score, summary and
 * details unchanged: they reached competitors already) with the private criteria and test details
 * put back in the config's order, and privateScore from the private pass.
 */
export function mergePrivatePass(
  /** The config the passes judged (null when it no longer parses: the private items go last). */
  config: JudgeConfig | null,
  publicOutcome: JudgeOutcome,
  privateOutcome: Pick<JudgeOutcome, 'criteria' | 'details' | 'privateScore'>,
): JudgeOutcome {
  const held = privateOutcome.criteria.map((criterion) => ({ ...criterion, private: true }));
  const merged: JudgeOutcome = {
    ...publicOutcome,
    privateScore: privateOutcome.privateScore ?? (held.length > 0 ? weightedScore(held) : null),
    criteria: interleave(config, publicOutcome.criteria, held),
  };
  const heldTests = testsOf(privateOutcome);
  if (heldTests.length > 0 || testsOf(publicOutcome).length > 0) {
    merged.details = {
      ...(publicOutcome.details ?? {}),
      tests: interleave(config, testsOf(publicOutcome), heldTests),
    };
  }
  const notJudged = privateOutcome.details?.not_judged;
  if (typeof notJudged === 'string') merged.details = { ...merged.details, private_not_judged: notJudged };
  return merged;
}

/**
 * The private pass's outcome when it cannot finish (retries exhausted, a judge that refuses, the
 * config gone bad): every private item scores 0 and says why, so the pass is `done` with 0, never
 * left pending.
 */
export function failedPrivatePass(
  config: JudgeConfig,
  reason: string,
): Pick<JudgeOutcome, 'criteria' | 'details' | 'privateScore'> {
  const held = configForPass(config, 'private');
  const items = itemsOf(held) ?? [];
  const feedback = `not judged: ${reason}`.slice(0, 500);
  const criteria: CriterionResult[] = items.map((item) => ({
    name: item.name,
    weight: item.weight,
    score: 0,
    passed: false,
    feedback,
    hidden: item.hidden,
    private: true,
  }));
  return { criteria, privateScore: 0, details: { not_judged: reason } };
}
