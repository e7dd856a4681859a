import type { JudgeOutcome, ResultState } from './types';

export type BreakdownAudience = 'competitor' | 'spectator' | 'admin';

export interface HiddenSummary {
  hidden_passed: number;
  hidden_total: number;
}

interface BreakdownBase {
  final_score: number;
  result_state: ResultState;
  /** Hidden criteria/tests only ever appear as these counts outside the admin view. */
  hidden_summary: HiddenSummary;
}

export interface CompetitorBreakdown extends BreakdownBase {
  audience: 'competitor';
  summary: string;
  criteria: { name: string; weight: number; score: number; passed: boolean; feedback: string }[];
  /** Public test runs, the entry and any compile error; absent when the judge has none. */
  details?: Record<string, unknown>;
}

export interface SpectatorBreakdown extends BreakdownBase {
  audience: 'spectator';
  criteria: { name: string; score: number }[];
}

export interface AdminBreakdown extends BreakdownBase {
  audience: 'admin';
  summary: string;
  criteria: {
    name: string;
    weight: number;
    score: number;
    passed: boolean;
    feedback: string;
    hidden: boolean;
  }[];
  details: Record<string, unknown> | null;
}

export type BreakdownView = CompetitorBreakdown | SpectatorBreakdown | AdminBreakdown;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The competitor sees details about their own code only: an allowlist, with test runs filtered to
 * those explicitly public (a hidden test's logs could echo its inputs).
 */
function competitorDetails(
  details: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (!details) return undefined;
  const visible: Record<string, unknown> = {};
  if (typeof details.entry === 'string' || details.entry === null) visible.entry = details.entry;
  if (typeof details.compile_error === 'string') visible.compile_error = details.compile_error;
  // program judge: the owner's language, compiler output and the reason of a judged 0.
  for (const key of ['language', 'compile_output', 'reason'] as const) {
    if (typeof details[key] === 'string' || details[key] === null) visible[key] = details[key];
  }
  if (Array.isArray(details.tests)) {
    visible.tests = details.tests.flatMap((test) => {
      if (!isRecord(test)) return [];
      if (test.hidden === false) return [test];
      // Like a contest judge, a program test's name and verdict, never its data or output.
      if (typeof test.verdict === 'string') return [hiddenProgramTest(test)];
      return [];
    });
  }
  return Object.keys(visible).length > 0 ? visible : undefined;
}

/**
 * What an owner sees of a hidden program test (an allowlist): its name and verdict. No figures:
 * a program can encode its hidden input in its own CPU time or memory, and the red team read
 * hidden stdin back through them. Operators see everything (the admin audience).
 */
function hiddenProgramTest(test: Record<string, unknown>): Record<string, unknown> {
  return { name: test.name, hidden: true, verdict: test.verdict };
}

/** Projects a judge outcome for one audience; snake_case, JSON-ready. */
export function breakdownView(outcome: JudgeOutcome, audience: 'competitor'): CompetitorBreakdown;
export function breakdownView(outcome: JudgeOutcome, audience: 'spectator'): SpectatorBreakdown;
export function breakdownView(outcome: JudgeOutcome, audience: 'admin'): AdminBreakdown;
export function breakdownView(outcome: JudgeOutcome, audience: BreakdownAudience): BreakdownView;
export function breakdownView(outcome: JudgeOutcome, audience: BreakdownAudience): BreakdownView {
  const visibleCriteria = outcome.criteria.filter((criterion) => !criterion.hidden);
  const hiddenCriteria = outcome.criteria.filter((criterion) => criterion.hidden);
  const totals = { final_score: outcome.score, result_state: outcome.resultState };
  const hidden_summary: HiddenSummary = {
    hidden_passed: hiddenCriteria.filter((criterion) => criterion.passed).length,
    hidden_total: hiddenCriteria.length,
  };
  switch (audience) {
    case 'competitor': {
      const details = competitorDetails(outcome.details);
      return {
        audience,
        ...totals,
        summary: outcome.summary,
        criteria: visibleCriteria.map(({ name, weight, score, passed, feedback }) => ({
          name,
          weight,
          score,
          passed,
          feedback,
        })),
        hidden_summary,
        ...(details === undefined ? {} : { details }),
      };
    }
    case 'spectator':
      return {
        audience,
        ...totals,
        criteria: visibleCriteria.map(({ name, score }) => ({ name, score })),
        hidden_summary,
      };
    case 'admin':
      return {
        audience,
        ...totals,
        summary: outcome.summary,
        criteria: outcome.criteria.map(({ name, weight, score, passed, feedback, hidden }) => ({
          name,
          weight,
          score,
          passed,
          feedback,
          hidden,
        })),
        hidden_summary,
        details: outcome.details ?? null,
      };
  }
}
