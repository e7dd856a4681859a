/** The submission feature's decisions, pure (unit-tested): body bounds, quotas, identity of an artifact, sweep timing. */
import { createHash } from 'node:crypto';
import type { Config } from '../../config';
import type { SubmissionFile } from '../../db/queries/submissions';
import { canonicalJson } from '../../lib/canonical-json';
import { detectProgram } from '../../judging/program/detect';
import { COUNTS_AGAINST_LIMITS, type JudgeOutcome } from '../../judging/types';
import { LANGUAGE_IDS, type LanguageId, languageByName } from '../../judging/program/languages';

/** Bounds of a submission body (content's 100,000 characters is the spec's; the rest are ours). */
export const SUBMISSION_LIMITS = {
  maxContentChars: 100_000,
  maxFiles: 64,
  maxPathChars: 255,
  maxLanguageChars: 50,
  /** UTF-8 bytes of content + every file path and content. */
  maxTotalBytes: 1024 * 1024,
} as const;

/**
 * Whether a judged run counts against the submission limits: every run does but a compile error
 * the compiler reported within its own limits (DESIGN "Multi-file programs and the competitor's
 * second pass", as DOMjudge and Codeforces; the judge marks it), which is given back.
 */
export function countsAgainstLimits(outcome: Pick<JudgeOutcome, 'details'>): boolean {
  return outcome.details?.[COUNTS_AGAINST_LIMITS] !== false;
}

/** Used when a challenge row has no per-session limit (the column defaults to 10 as well). */
export const DEFAULT_MAX_SUBMISSIONS_PER_SESSION = 10;

/**
 * sha256 (hex) of the canonical JSON of `{content, files: [{path, content, language}]}` in the
 * given file order, plus the body's `language` when one was named (absent otherwise, so earlier
 * hashes stay what they were).
 */
export function artifactHash(
  content: string,
  files: SubmissionFile[],
  language: string | null = null,
): string {
  const normalized = {
    content,
    files: files.map((f) => ({ path: f.path, content: f.content, language: f.language ?? null })),
    ...(language === null ? {} : { language }),
  };
  return createHash('sha256').update(canonicalJson(normalized)).digest('hex');
}

/** Why one more submission is refused under the challenge's quotas (failed judgings do not count), or null. */
export function quotaRefusal(
  limits: { perSession: number; perDay: number | null },
  counted: { inSession: number; today: number | null },
): string | null {
  if (counted.inSession >= limits.perSession)
    return `at most ${limits.perSession} submissions per session (failed judgings do not count)`;
  if (limits.perDay !== null && counted.today !== null && counted.today >= limits.perDay) {
    return `at most ${limits.perDay} submissions per agent per day in this challenge (failed judgings do not count)`;
  }
  return null;
}

/** DESIGN `submissions_left`: each number null where that limit is unlimited. */
export interface SubmissionsLeft {
  session: number | null;
  day: number | null;
  day_resets_at: string | null;
}

export const DAY_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * What is left before the quota refuses (quotaRefusal's counts seen from the other side):
 * `session` in the open session (the whole per-session cap when none is open), `day` in the
 * rolling 24 h, `day_resets_at` when the oldest counted submission leaves that window (null
 * when none counts, or the day is unlimited).
 */
export function submissionsLeft(
  limits: { perSession: number | null; perDay: number | null },
  counted: { inOpenSession: number | null; today: number; oldestTodayAt: Date | null },
): SubmissionsLeft {
  return {
    session:
      limits.perSession === null ? null : Math.max(0, limits.perSession - (counted.inOpenSession ?? 0)),
    day: limits.perDay === null ? null : Math.max(0, limits.perDay - counted.today),
    day_resets_at:
      limits.perDay === null || counted.oldestTodayAt === null
        ? null
        : new Date(counted.oldestTodayAt.getTime() + DAY_WINDOW_MS).toISOString(),
  };
}

/** A run in flight this long without progress gets its workflow checked (30 × the sweep delay, ≥ 30 s). */
export function stallAfterMs(config: Pick<Config, 'SUBMISSION_SWEEP_AFTER_MS'>): number {
  return Math.max(30_000, config.SUBMISSION_SWEEP_AFTER_MS * 30);
}

/** Sweep interval: half the sweep delay, between 250 ms and 5 s. */
export function sweepIntervalMs(sweepAfterMs: number): number {
  return Math.max(250, Math.min(5_000, Math.floor(sweepAfterMs / 2)));
}

/** What a submission-time check needs of a challenge's judge (ChallengeRules' small paths). */
export interface JudgeAtIntake {
  kind: string | null;
  /** A program judge's allowed languages (null/absent: all). */
  languages: unknown;
  /** A `tests` judge's configured entry file (null: none). */
  entry?: string | null;
}

/** The languages a `tests` judge loads (src/judging/sandbox/prepare-submission.ts). */
const TESTS_JUDGE_LANGUAGES: readonly LanguageId[] = ['javascript', 'typescript'];
const TESTS_JUDGE_EXTENSIONS = /\.(?:[cm]?[jt]s|[jt]sx)$/i;

/** `a/./b`, `./a` → `a/b`; the stored paths are already canonical (the schema refuses others). */
const canonicalPath = (p: string) =>
  p
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.')
    .join('/');

/** The languages a code judge allows (program and game: its list or all; tests: JS/TS); null for text judges. */
export function allowedLanguagesFor(judge: JudgeAtIntake): readonly LanguageId[] | null {
  // A game's players are programs too: the same languages and detection.
  if (judge.kind === 'program' || judge.kind === 'game') {
    return Array.isArray(judge.languages)
      ? LANGUAGE_IDS.filter((id) => (judge.languages as unknown[]).includes(id))
      : [...LANGUAGE_IDS];
  }
  if (judge.kind === 'tests') return TESTS_JUDGE_LANGUAGES;
  return null;
}

/**
 * What can be known at submission is refused at submission (DESIGN "Submitting code the way
 * people do"; 400, counting against nothing): nothing to judge; for a code judge, a language
 * that cannot be detected or is not allowed (naming the allowed ones); for a `tests` judge with
 * an `entry`, that file missing. A compile error is not knowable here: it stays a judged 0.
 */
export function submissionRefusal(
  judge: JudgeAtIntake,
  submission: { content: string; files: readonly SubmissionFile[]; language?: string | null },
): string | null {
  if (submission.content.trim() === '' && submission.files.length === 0)
    return 'nothing to judge: send content or at least one file';
  const allowed = allowedLanguagesFor(judge);
  if (allowed === null) return null;
  const allowedText = `allowed: ${allowed.join(', ')}`;
  const named = [submission.language, ...submission.files.map((f) => f.language)].filter(
    (l): l is string => typeof l === 'string' && l.trim() !== '',
  );
  for (const name of named) {
    if (languageByName(name) === undefined) return `unknown language "${name.slice(0, 40)}" (${allowedText})`;
  }
  if (judge.kind === 'program' || judge.kind === 'game') {
    const detection = detectProgram({
      content: submission.content,
      files: [...submission.files],
      language: submission.language ?? null,
    });
    if (detection.kind !== 'detected') return `${detection.reason} (${allowedText})`;
    if (!allowed.includes(detection.language))
      return `language ${detection.language} is not allowed in this challenge (${allowedText})`;
    return null;
  }
  // tests: JavaScript or TypeScript modules.
  for (const name of named) {
    const id = languageByName(name)!;
    if (!allowed.includes(id)) return `language ${id} is not allowed in this challenge (${allowedText})`;
  }
  const entry = judge.entry ? canonicalPath(judge.entry) : null;
  if (entry !== null) {
    if (!submission.files.some((f) => canonicalPath(f.path) === entry))
      return `the entry file ${entry} is missing: submit it under that path (files: ${
        submission.files.length ? submission.files.map((f) => f.path).join(', ') : 'none'
      })`;
    return null;
  }
  const hasCode = submission.files.some((f) => TESTS_JUDGE_EXTENSIONS.test(f.path));
  if (!hasCode && submission.content.trim() === '')
    return `no JavaScript or TypeScript file (${allowedText})`;
  return null;
}

/**
 * What of a judged outcome can be stored when the outcome itself could not be (a value the
 * database refused, DESIGN "Whatever a program writes is data"): the score, the state and each
 * test's verdict and figures, without any text the program, grader or compiler wrote; the
 * reason says what was left out. The run is judged (`complete`), never `failed` for its output.
 */
export function verdictsOnly(outcome: JudgeOutcome, reason: string): JudgeOutcome {
  const tests = Array.isArray(outcome.details?.tests) ? (outcome.details.tests as unknown[]) : null;
  const keep = ['name', 'hidden', 'private', 'verdict', 'time_ms', 'memory_kb'];
  const note = `the judge's report could not be stored (${reason}); only the verdicts were kept`;
  return {
    score: outcome.score,
    privateScore: outcome.privateScore ?? null,
    resultState: outcome.resultState,
    summary: `score ${outcome.score}: ${note}`,
    criteria: outcome.criteria.map((criterion) => ({
      name: criterion.name,
      weight: criterion.weight,
      score: criterion.score,
      passed: criterion.passed,
      feedback: criterion.passed ? 'passed' : 'not passed',
      hidden: criterion.hidden,
      ...(criterion.private !== undefined ? { private: criterion.private } : {}),
    })),
    details: {
      reason: note,
      ...(tests
        ? {
            tests: tests.map((test) =>
              Object.fromEntries(
                Object.entries((test ?? {}) as Record<string, unknown>).filter(([key]) => keep.includes(key)),
              ),
            ),
          }
        : {}),
    },
  };
}
