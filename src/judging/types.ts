/** What a judge sees of a submission (the API's submission body). */
export interface SubmissionForJudging {
  content: string;
  files: { path: string; content: string; language?: string }[];
  /** The body's `language` (id or alias): for files naming none, and for `content` without files. */
  language?: string | null;
}

export type ResultState = 'scored' | 'failed' | 'disqualified';

export interface CriterionResult {
  name: string;
  weight: number;
  /** 0..100 */
  score: number;
  passed: boolean;
  feedback: string;
  hidden: boolean;
  /** Counted only in the outcome's privateScore (absent in outcomes stored before fair contests). */
  private?: boolean;
}

/**
 * `details[COUNTS_AGAINST_LIMITS] === false`: the outcome is a compile error the compiler
 * reported within its own limits, which counts against no submission limit (DESIGN
 * "Multi-file programs and the competitor's second pass"); absent: the submission counts.
 */
export const COUNTS_AGAINST_LIMITS = 'counts_against_limits';

export interface JudgeOutcome {
  /** 0..100, rounded to 2 decimals, over the criteria that are not private. */
  score: number;
  /** 0..100 over the private criteria only; null (or absent in older outcomes) when there are none. */
  privateScore?: number | null;
  resultState: ResultState;
  /** One line of feedback. */
  summary: string;
  criteria: CriterionResult[];
  /** Judge-specific extra information, already snake_case and JSON-ready. */
  details?: Record<string, unknown>;
}

export interface JudgeRunOptions {
  /**
   * Cancels judging (e.g. Temporal activity cancellation): running sandboxes are killed and
   * runJudge rejects with the signal's reason.
   */
  signal?: AbortSignal;
  /** Called after each finished test case of a `tests` judge (useful for activity heartbeats). */
  onProgress?: (progress: { completed: number; total: number }) => void;
  /** Sandboxes run at the same time by the `tests` judge. Defaults to 1: a judging is one slot (fair-share caps count slots). */
  testConcurrency?: number;
  /** A `game` judge's opponent: the program itself (validation, the default) or the game's baseline bot (an operator's dry run). */
  gameOpponent?: 'self' | 'boss';
  /**
   * Judge one pass only (./private-pass.ts): the tests or criteria that are not private, or the
   * private ones. Absent: all of them at once (runs of workflows started before the passes split).
   */
  pass?: 'public' | 'private';
}
