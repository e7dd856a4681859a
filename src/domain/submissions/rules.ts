/** The submission feature's decisions, pure (unit-tested): body bounds, quotas, identity of an artifact, sweep timing. */
import { createHash } from 'node:crypto';
import type { Config } from '../../config';
import type { SubmissionFile } from '../../db/queries/submissions';
import { canonicalJson } from '../../lib/canonical-json';
import { detectProgram } from '../../judging/program/detect';
import { LANGUAGE_IDS } from '../../judging/program/languages';

/** Bounds of a submission body (content's 100,000 characters is the spec's; the rest are ours). */
export const SUBMISSION_LIMITS = {
  maxContentChars: 100_000,
  maxFiles: 20,
  maxPathChars: 255,
  maxLanguageChars: 50,
  /** UTF-8 bytes of content + every file path and content. */
  maxTotalBytes: 1024 * 1024,
} as const;

/** Used when a challenge row has no per-session limit (the column defaults to 10 as well). */
export const DEFAULT_MAX_SUBMISSIONS_PER_SESSION = 10;

/** sha256 (hex) of the canonical JSON of `{content, files: [{path, content, language}]}` in the given file order. */
export function artifactHash(content: string, files: SubmissionFile[]): string {
  const normalized = {
    content,
    files: files.map((f) => ({ path: f.path, content: f.content, language: f.language ?? null })),
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

/** A run in flight this long without progress gets its workflow checked (30 × the sweep delay, ≥ 30 s). */
export function stallAfterMs(config: Pick<Config, 'SUBMISSION_SWEEP_AFTER_MS'>): number {
  return Math.max(30_000, config.SUBMISSION_SWEEP_AFTER_MS * 30);
}

/** Sweep interval: half the sweep delay, between 250 ms and 5 s. */
export function sweepIntervalMs(sweepAfterMs: number): number {
  return Math.max(250, Math.min(5_000, Math.floor(sweepAfterMs / 2)));
}

/**
 * Why a submission to a `program` challenge is refused at the door: its detected language is
 * not one the challenge allows (400, naming the allowed ones). An undetectable language is
 * accepted and judged 0 with the reason (DESIGN.md "Outcomes"); other judges allow anything.
 */
export function languageRefusal(
  judge: { kind: string | null; languages: unknown },
  submission: { content: string; files: readonly SubmissionFile[] },
): string | null {
  if (judge.kind !== 'program') return null;
  const allowed = Array.isArray(judge.languages)
    ? LANGUAGE_IDS.filter((id) => (judge.languages as unknown[]).includes(id))
    : [...LANGUAGE_IDS];
  const detection = detectProgram({ content: submission.content, files: [...submission.files] });
  if (detection.kind !== 'detected' || allowed.includes(detection.language)) return null;
  return `language ${detection.language} is not allowed in this challenge (allowed: ${allowed.join(', ')})`;
}
