/**
 * The challenge feature's decisions, pure (unit-tested in test/unit/domain/challenges/challenges.test.ts): when work
 * can happen in a challenge, what an operator may write. No I/O here. Who may see what: policy.ts.
 */
import { ServiceError, invalidFields, validationError } from '../../errors';
import { type ChallengeFields, type ChallengeRow } from '../../db/queries/challenges';
import type { ChallengeSchedule } from './contract';
import { checkGameChallenge, resolveMatchSettings, type MatchSettings } from '../matches/rules';

/**
 * The formats a challenge may be created with or changed to (DESIGN "Multi-file programs and the
 * competitor's second pass"). Stored rows keep whatever they hold and stay editable; list filters
 * stay free strings.
 */
export const CHALLENGE_FORMATS = ['solo', 'text', 'code', 'head_to_head', 'game'] as const;
export type ChallengeFormat = (typeof CHALLENGE_FORMATS)[number];

export const FORMAT_MESSAGE = `must be one of ${CHALLENGE_FORMATS.join(', ')}`;

export function isChallengeFormat(format: string): format is ChallengeFormat {
  return (CHALLENGE_FORMATS as readonly string[]).includes(format);
}

/** A format set on create, or changed by an edit, must be one of the menu's (400 naming them). */
export function checkFormat(format: string, stored?: string): void {
  if (format !== stored && !isChallengeFormat(format)) throw invalidFields({ format: FORMAT_MESSAGE });
}

/** A new challenge as an operator describes it (times as ISO 8601); the API's schema validates it. */
export type NewChallenge = Omit<ChallengeFields, 'starts_at' | 'ends_at' | 'judge'> & {
  starts_at: string | null;
  ends_at: string | null;
  judge: unknown;
};

/** An operator's edit: any subset of the fields (null clears a time). */
export type ChallengePatch = Partial<NewChallenge>;

export type Instant = Date | string | null;
type ChallengeTimes = { status: string; starts_at: Instant; ends_at: Instant };

export const instantMs = (t: Instant): number | null =>
  t === null ? null : typeof t === 'string' ? Date.parse(t) : t.getTime();

export type Enterability =
  { ok: true } | { ok: false; reason: 'not_active' | 'not_started' | 'ended'; message: string };

/**
 * Whether work can happen in a challenge now (opening sessions, submitting): active, started
 * (`starts_at` null or reached) and not ended (`ends_at` null or still ahead). Accepts a row or the
 * public Challenge (ISO strings).
 */
export function enterability(challenge: ChallengeTimes, now: Date = new Date()): Enterability {
  const t = now.getTime();
  if (challenge.status !== 'active') {
    return {
      ok: false,
      reason: 'not_active',
      message: `challenge is not enterable: its status is ${challenge.status}`,
    };
  }
  const starts = instantMs(challenge.starts_at);
  if (starts !== null && starts > t) {
    return {
      ok: false,
      reason: 'not_started',
      message: `challenge is not enterable yet: it starts at ${new Date(starts).toISOString()}`,
    };
  }
  const ends = instantMs(challenge.ends_at);
  if (ends !== null && ends <= t)
    return { ok: false, reason: 'ended', message: 'challenge is not enterable: it has ended' };
  return { ok: true };
}

/** For the sessions engineer: can a session be opened now? (see `enterability` for the reason). */
export function isEnterable(challenge: ChallengeTimes, now: Date = new Date()): boolean {
  return enterability(challenge, now).ok;
}

/**
 * Entering from the web interface (an `assigned` entry) is registration: allowed for an active
 * challenge that has not ended, also before it starts (the connector sees starts_at and waits).
 */
export function acceptsEntries(challenge: ChallengeTimes, now: Date = new Date()): Enterability {
  const verdict = enterability(challenge, now);
  return !verdict.ok && verdict.reason === 'not_started' ? { ok: true } : verdict;
}

/** Rejects a window whose end is not after its start (after merging a PATCH into the row). */
export function checkWindow(startsAt: Instant, endsAt: Instant): void {
  const s = instantMs(startsAt);
  const e = instantMs(endsAt);
  if (s !== null && e !== null && e <= s) throw invalidFields({ ends_at: 'ends_at must be after starts_at' });
}

export function scheduleOf(row: Pick<ChallengeRow, 'starts_at' | 'ends_at'>): ChallengeSchedule {
  return { startsAt: row.starts_at?.toISOString() ?? null, endsAt: row.ends_at?.toISOString() ?? null };
}

export function toChallengeFields(challenge: NewChallenge): ChallengeFields {
  checkGameChallenge({ format: challenge.format, judge: challenge.judge, match: challenge.match as never });
  return {
    title: challenge.title,
    description: challenge.description,
    category: challenge.category,
    format: challenge.format,
    weight_class_id: challenge.weight_class_id,
    time_limit_minutes: challenge.time_limit_minutes,
    entry_fee_cents: challenge.entry_fee_cents,
    prize_pool: challenge.prize_pool,
    starts_at: challenge.starts_at ? new Date(challenge.starts_at) : null,
    ends_at: challenge.ends_at ? new Date(challenge.ends_at) : null,
    is_featured: challenge.is_featured,
    is_daily: challenge.is_daily,
    judge: challenge.judge as Record<string, unknown>,
    max_submissions_per_session: challenge.max_submissions_per_session,
    max_submissions_per_day: challenge.max_submissions_per_day,
    final_submissions: challenge.final_submissions,
    freeze_minutes: challenge.freeze_minutes,
    match: resolveMatchSettings({
      format: challenge.format,
      match: challenge.match as Partial<MatchSettings> | null | undefined,
    }) as Record<string, unknown> | null,
  };
}

/**
 * The versions an `If-Match` header accepts (`"7"`, `W/"7"`, `7`, or a comma-separated list of
 * them); null when it accepts any (absent, empty or `*`: the edit applies as before versions).
 * A header naming no version at all is a 400.
 */
export function versionsOfIfMatch(header: string | undefined): number[] | null {
  if (header === undefined || header.trim() === '' || header.trim() === '*') return null;
  const versions: number[] = [];
  for (const part of header.split(',')) {
    const match = /^\s*(?:W\/)?"?(\d{1,9})"?\s*$/.exec(part);
    if (match) versions.push(Number(match[1]));
  }
  if (versions.length === 0)
    throw validationError(
      'If-Match: name the version you read, as the ETag answered it (e.g. "7"), or leave it out',
    );
  return versions;
}

/** Refuses an edit made from a version that is no longer current (412, nothing changed). */
export function checkVersion(current: number, accepted: number[] | null): void {
  if (accepted === null || accepted.includes(current)) return;
  throw new ServiceError(
    'PRECONDITION_FAILED',
    `the challenge changed since you read it: it is at version ${current}, If-Match names version ${accepted.join(', ')}; nothing was changed`,
  );
}

/**
 * Why nobody can take part in a challenge any more (or yet), in words for its pages; null while it
 * is open (active and not ended; an upcoming one already takes entries). The "Take part" link and
 * forms give way to this sentence.
 */
export function takePartClosedReason(
  challenge: { status: string; quarantine_reason: string | null; ends_at: Instant },
  now: Date = new Date(),
): string | null {
  if (challenge.status === 'archived')
    return 'Taking part has closed: this challenge is archived (retired by its operators). Its rules and leaderboard stay readable.';
  if (challenge.status === 'draft')
    return challenge.quarantine_reason !== null
      ? 'Taking part is closed: the operators have quarantined this challenge (hidden while they look into it). Nothing can be entered or submitted until they publish it again.'
      : 'Not open yet: this challenge is a draft, not published.';
  const ends = instantMs(challenge.ends_at);
  if (challenge.status === 'complete' || (ends !== null && ends <= now.getTime()))
    return 'Taking part has closed: this challenge has ended. Its rules and final leaderboard stay readable.';
  return null;
}
