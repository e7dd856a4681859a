import type { JudgeOutcome, ResultState } from './types';

export type BreakdownAudience = 'competitor' | 'spectator' | 'admin';

export interface HiddenSummary {
  hidden_passed: number;
  hidden_total: number;
}

interface BreakdownBase {
  /** Over the tests and criteria that are not private (what every board uses). */
  final_score: number;
  result_state: ResultState;
  /** Hidden criteria/tests only ever appear as these counts outside the admin view. */
  hidden_summary: HiddenSummary;
}

export interface CompetitorBreakdown extends BreakdownBase {
  audience: 'competitor';
  summary: string;
  criteria: {
    name: string;
    weight: number;
    score: number;
    passed: boolean;
    feedback: string;
    private?: true;
  }[];
  /** Only once the challenge is complete (and only when it has private tests or criteria). */
  private_score?: number | null;
  /** Public test runs, the entry and any compile error; absent when the judge has none. */
  details?: Record<string, unknown>;
}

export interface SpectatorBreakdown extends BreakdownBase {
  audience: 'spectator';
  criteria: { name: string; score: number; private?: true }[];
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
    /** Always set by breakdownView. */
    private?: boolean;
  }[];
  details: Record<string, unknown> | null;
  /** 0..100 over the private tests or criteria; null when there are none (always set by breakdownView). */
  private_score?: number | null;
}

export interface BreakdownOptions {
  /**
   * The challenge is complete: private tests and criteria appear (with `private: true`) and the
   * owner sees private_score. Before that, no competitor or spectator view shows any trace of them.
   */
  revealPrivate?: boolean;
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
  revealPrivate: boolean,
): Record<string, unknown> | undefined {
  if (!details) return undefined;
  const visible: Record<string, unknown> = {};
  if (typeof details.entry === 'string' || details.entry === null) visible.entry = details.entry;
  if (typeof details.compile_error === 'string') visible.compile_error = details.compile_error;
  // program judge: the owner's language, compiler output and the reason of a judged 0.
  for (const key of ['language', 'compile_output', 'reason'] as const) {
    if (typeof details[key] === 'string' || details[key] === null) visible[key] = details[key];
  }
  // game judge: the self-play game's verdict, the fault (kind, turn, seat, why) and the
  // program's own stderr: nothing of it is hidden (the owner's program played itself).
  for (const key of ['game', 'verdict', 'stderr_excerpt'] as const) {
    if (typeof details[key] === 'string') visible[key] = details[key];
  }
  // Whether a compile error was given back to the submission limits (issue 40): the owner's own.
  if (typeof details.counts_against_limits === 'boolean')
    visible.counts_against_limits = details.counts_against_limits;
  if (typeof details.turns === 'number') visible.turns = details.turns;
  if (isRecord(details.fault)) visible.fault = details.fault;
  if (Array.isArray(details.statuses)) visible.statuses = details.statuses;
  if (Array.isArray(details.rewards)) visible.rewards = details.rewards;
  if (Array.isArray(details.tests)) {
    visible.tests = details.tests.flatMap((test) => {
      if (!isRecord(test)) return [];
      if (test.private === true && !revealPrivate) return [];
      if (test.hidden === false) {
        // Before completion not even the `private: false` flag shows (nothing hints at held-out tests).
        if (revealPrivate || !('private' in test)) return [test];
        const { private: _flag, ...shown } = test;
        return [shown];
      }
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
  return {
    name: test.name,
    hidden: true,
    ...(test.private === true ? { private: true } : {}),
    verdict: test.verdict,
  };
}

/** Projects a judge outcome for one audience; snake_case, JSON-ready. */
export function breakdownView(
  outcome: JudgeOutcome,
  audience: 'competitor',
  options?: BreakdownOptions,
): CompetitorBreakdown;
export function breakdownView(
  outcome: JudgeOutcome,
  audience: 'spectator',
  options?: BreakdownOptions,
): SpectatorBreakdown;
export function breakdownView(
  outcome: JudgeOutcome,
  audience: 'admin',
  options?: BreakdownOptions,
): AdminBreakdown;
export function breakdownView(
  outcome: JudgeOutcome,
  audience: BreakdownAudience,
  options?: BreakdownOptions,
): BreakdownView;
export function breakdownView(
  outcome: JudgeOutcome,
  audience: BreakdownAudience,
  options: BreakdownOptions = {},
): BreakdownView {
  const revealPrivate = options.revealPrivate === true;
  const open = outcome.criteria.filter((criterion) => criterion.private !== true);
  const held = outcome.criteria.filter((criterion) => criterion.private === true);
  const hasPrivate = held.length > 0;
  // Outcomes stored before fair contests carry no privateScore: none of their criteria is private.
  const privateScore = outcome.privateScore ?? null;
  const visibleCriteria = open.filter((criterion) => !criterion.hidden);
  const hiddenCriteria = open.filter((criterion) => criterion.hidden);
  /** After completion, the private ones follow (a hidden one without its feedback). */
  const revealed = revealPrivate ? held : [];
  const totals = { final_score: outcome.score, result_state: outcome.resultState };
  const hidden_summary: HiddenSummary = {
    hidden_passed: hiddenCriteria.filter((criterion) => criterion.passed).length,
    hidden_total: hiddenCriteria.length,
  };
  switch (audience) {
    case 'competitor': {
      const details = competitorDetails(outcome.details, revealPrivate);
      return {
        audience,
        ...totals,
        summary: outcome.summary,
        criteria: [
          ...visibleCriteria.map(({ name, weight, score, passed, feedback }) => ({
            name,
            weight,
            score,
            passed,
            feedback,
          })),
          ...revealed.map(({ name, weight, score, passed, feedback, hidden }) => ({
            name,
            weight,
            score,
            passed,
            feedback: hidden ? '' : feedback,
            private: true as const,
          })),
        ],
        hidden_summary,
        ...(revealPrivate && hasPrivate ? { private_score: privateScore } : {}),
        ...(details === undefined ? {} : { details }),
      };
    }
    case 'spectator':
      return {
        audience,
        ...totals,
        criteria: [
          ...visibleCriteria.map(({ name, score }) => ({ name, score })),
          ...revealed.map(({ name, score }) => ({ name, score, private: true as const })),
        ],
        hidden_summary,
      };
    case 'admin':
      return {
        audience,
        ...totals,
        summary: outcome.summary,
        criteria: outcome.criteria.map(
          ({ name, weight, score, passed, feedback, hidden, private: held }) => ({
            name,
            weight,
            score,
            passed,
            feedback,
            hidden,
            private: held === true,
          }),
        ),
        hidden_summary,
        details: outcome.details ?? null,
        private_score: privateScore,
      };
  }
}
