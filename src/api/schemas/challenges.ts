import { z } from 'zod';
import { CHALLENGE_STATUSES, type ChallengeRow, type ChallengeSummaryRow } from '../../db/queries/challenges';
import type { EntryRow } from '../../db/queries/entries';
import { judgeConfigSchema, judgePublicView } from '../../judging';
import { submissionsLeftSchema } from './submissions';
import { isoDate, queryInt, safeText } from './common';
import { iso } from '../../lib/time';
import { matchSettingsOf } from '../../domain/matches/rules';
import { CHALLENGE_FORMATS, FORMAT_MESSAGE } from '../../domain/challenges/rules';
import { matchSettingsInput, matchSettingsSchema } from './matches';

export const challengeStatusSchema = z.enum(CHALLENGE_STATUSES);

/** The format menu as the API accepts it on create (the console's form offers the same). */
export const challengeFormatOptions: readonly string[] = CHALLENGE_FORMATS;

// ---- responses ---------------------------------------------------------------------------------

/** The spec's Challenge (every field, in its order) plus additive extras. Never carries the judge. */
export const challengeSchema = z.object({
  id: z.string().uuid(),
  title: z.string(),
  description: z.string(),
  category: z.string(),
  format: z.string(),
  weight_class_id: z.string(),
  status: challengeStatusSchema,
  time_limit_minutes: z.number().int().nullable(),
  entry_fee_cents: z.number().int().nullable(),
  prize_pool: z.number().nullable(),
  starts_at: z.string().nullable(),
  ends_at: z.string().nullable(),
  entry_count: z.number().int(),
  is_featured: z.boolean(),
  is_daily: z.boolean(),
  created_at: z.string(),
  // Extensions (additive).
  max_submissions_per_session: z.number().int(),
  max_submissions_per_day: z.number().int().nullable(),
  updated_at: z.string(),
  // Fair contests (DESIGN "Fair contests"): how many submissions an agent may select for the
  // final board, and the freeze before ends_at.
  final_submissions: z.number().int(),
  freeze_minutes: z.number().int(),
  /** head_to_head / game: the match settings (DESIGN "Matches between agents"); null for solo formats. */
  match: matchSettingsSchema.nullable(),
});
export type Challenge = z.infer<typeof challengeSchema>;

/** The public part of a judge (src/judging/public-view.ts): what a competitor needs to take part. */
export const judgePublicSchema = z
  .object({
    kind: z.string().openapi({ example: 'program' }),
    languages: z
      .array(z.string())
      .nullable()
      .openapi({
        description: 'language ids a submission may use; null: any text',
        example: ['python', 'c'],
      }),
    entry: z.string().nullable().openapi({
      description:
        "the file a `tests` judge loads (its config's `entry`, e.g. src/solution.ts); null when none is configured",
      example: null,
    }),
    limits: z
      .object({
        time_limit_ms: z.number().int(),
        memory_mb: z.number().int(),
        compare: z.string().optional(),
        float_tolerance: z.number().optional(),
        turn_ms: z.number().int().optional(),
        bank_ms: z.number().int().optional(),
        games_per_match: z.number().int().optional(),
        max_turns: z.number().int().nullable().optional(),
      })
      .nullable(),
    game: z.string().optional().openapi({ description: '`game` judge: the game (GET /api/v1/games)' }),
    tests: z
      .array(
        z.object({
          name: z.string(),
          weight: z.number(),
          stdin: z.string().optional(),
          expected_stdout: z.string().optional(),
          export: z.string().optional(),
          args: z.array(z.unknown()).nullable().optional(),
          expected: z.unknown().optional(),
          truncated: z
            .boolean()
            .openapi({ description: 'test data over 4 KB is cut (program) or left out as null (tests)' }),
        }),
      )
      .openapi({ description: 'visible tests only; hidden tests are counted, never shown' }),
    hidden_test_count: z.number().int(),
    criteria: z
      .array(
        z.object({
          name: z.string(),
          weight: z.number(),
          description: z.string().nullable(),
          check: z.string().nullable().openapi({ description: "the check's type; its value stays private" }),
        }),
      )
      .openapi({ description: 'visible rubric criteria only' }),
    hidden_criteria_count: z.number().int(),
  })
  .openapi('JudgePublic');

/** GET /challenges/{id}: the challenge plus the public part of its judge (and, for an agent's credential, what it has left). */
export const challengeDetailSchema = challengeSchema.extend({
  judge_public: judgePublicSchema,
  submissions_left: submissionsLeftSchema,
});
export type ChallengeDetail = z.infer<typeof challengeDetailSchema>;

export function toChallengeDetail(
  row: ChallengeRow,
  submissionsLeft: ChallengeDetail['submissions_left'] = null,
): ChallengeDetail {
  return { ...toChallenge(row), judge_public: judgePublicView(row.judge), submissions_left: submissionsLeft };
}

/** Operators' view: the public fields plus the judge config and the lifecycle bookkeeping. */
export const adminChallengeSchema = challengeSchema.extend({
  judge: z.record(z.unknown()),
  quarantine_reason: z.string().nullable(),
  created_by: z.string().uuid().nullable(),
  published_at: z.string().nullable(),
  quarantined_at: z.string().nullable(),
  retired_at: z.string().nullable(),
  started_event_at: z.string().nullable(),
  ended_event_at: z.string().nullable(),
  version: z
    .number()
    .int()
    .describe('+1 with every change (edits, lifecycle transitions, automatic ones); also the ETag'),
});
export type AdminChallenge = z.infer<typeof adminChallengeSchema>;

/** Public serializer (list, get, and anything other areas embed): no judge, no operator fields. */
export function toChallenge(row: ChallengeSummaryRow): Challenge {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    category: row.category,
    format: row.format,
    weight_class_id: row.weight_class_id,
    status: row.status,
    time_limit_minutes: row.time_limit_minutes,
    entry_fee_cents: row.entry_fee_cents,
    prize_pool: row.prize_pool === null ? null : Number(row.prize_pool),
    starts_at: iso(row.starts_at),
    ends_at: iso(row.ends_at),
    entry_count: row.entry_count ?? 0,
    is_featured: row.is_featured,
    is_daily: row.is_daily,
    created_at: row.created_at.toISOString(),
    max_submissions_per_session: row.max_submissions_per_session,
    max_submissions_per_day: row.max_submissions_per_day,
    updated_at: row.updated_at.toISOString(),
    final_submissions: row.final_submissions,
    freeze_minutes: row.freeze_minutes,
    match: row.match ? matchSettingsOf(row) : null,
  };
}

export function toAdminChallenge(row: ChallengeRow): AdminChallenge {
  return {
    ...toChallenge(row),
    judge: row.judge,
    quarantine_reason: row.quarantine_reason,
    created_by: row.created_by,
    published_at: iso(row.published_at),
    quarantined_at: iso(row.quarantined_at),
    retired_at: iso(row.retired_at),
    started_event_at: iso(row.started_event_at),
    ended_event_at: iso(row.ended_event_at),
    version: row.version,
  };
}

/** The operators' ETag of a challenge: its version, quoted (a strong entity tag). */
export const challengeEtag = (row: { version: number }): string => `"${row.version}"`;

export const entrySchema = z.object({
  id: z.string().uuid(),
  challenge_id: z.string().uuid(),
  agent_id: z.string().uuid(),
  status: z.string(),
  assigned_at: z.string(),
  // Extension: sandbox entries are not counted in entry_count.
  sandbox: z.boolean(),
  // Extension: a bout entry's match (absent on ladder and solo entries).
  match_id: z.string().uuid().optional(),
});

export function toEntry(row: EntryRow) {
  return {
    id: row.id,
    challenge_id: row.challenge_id,
    agent_id: row.agent_id,
    status: row.status,
    assigned_at: row.assigned_at.toISOString(),
    sandbox: row.sandbox,
    // Only bout entries carry their match (solo and ladder entries keep their shape).
    ...(row.match_id ? { match_id: row.match_id } : {}),
  };
}

// ---- requests ----------------------------------------------------------------------------------

const label = safeText(100, 1).refine((s) => s.trim().length > 0, 'must not be blank');

/** Paging shared by the listings: page ≥ 1 (default 1), limit 1..100 (default 20). */
export const pageQuery = {
  page: queryInt(1, 1_000_000, 1),
  limit: queryInt(1, 100, 20),
};

export const listChallengesQuery = z.object({
  status: challengeStatusSchema.optional(),
  category: label.optional(),
  weight_class: label.optional(),
  format: label.optional(),
  ...pageQuery,
});
export type ListChallengesQuery = z.infer<typeof listChallengesQuery>;

export const listEntriesQuery = z.object({ ...pageQuery });

const nullableDate = isoDate.nullable();

/** Every operator-editable field; create requires the identifying ones, PATCH takes any subset. */
const challengeFieldShape = {
  title: safeText(200, 1).refine((s) => s.trim().length > 0, 'must not be blank'),
  description: safeText(20_000),
  category: label,
  format: label,
  weight_class_id: label,
  time_limit_minutes: z.number().int().min(1).max(525_600).nullable(),
  entry_fee_cents: z.number().int().min(0).max(100_000_000).nullable(),
  prize_pool: z.number().finite().min(0).max(1e12).nullable(),
  starts_at: nullableDate,
  ends_at: nullableDate,
  is_featured: z.boolean(),
  is_daily: z.boolean(),
  max_submissions_per_session: z.number().int().min(1).max(1000),
  max_submissions_per_day: z.number().int().min(1).max(100_000).nullable(),
  final_submissions: z.number().int().min(1).max(100),
  freeze_minutes: z.number().int().min(0).max(525_600),
  judge: judgeConfigSchema,
  match: matchSettingsInput.nullable(),
};

/** Both times present → ends_at must be after starts_at (PATCH re-checks against the stored row). */
function windowIsOrdered(b: { starts_at?: string | null; ends_at?: string | null }): boolean {
  return !b.starts_at || !b.ends_at || Date.parse(b.ends_at) > Date.parse(b.starts_at);
}
const WINDOW_MESSAGE = { message: 'ends_at must be after starts_at', path: ['ends_at'] };

export const createChallengeBody = z
  .object({
    ...challengeFieldShape,
    // The menu on create; an edit may keep a stored row's older value (editChallenge checks a change).
    format: z.enum(CHALLENGE_FORMATS, { errorMap: () => ({ message: FORMAT_MESSAGE }) }),
    description: challengeFieldShape.description.default(''),
    time_limit_minutes: challengeFieldShape.time_limit_minutes.default(null),
    entry_fee_cents: challengeFieldShape.entry_fee_cents.default(null),
    prize_pool: challengeFieldShape.prize_pool.default(null),
    starts_at: nullableDate.default(null),
    ends_at: nullableDate.default(null),
    is_featured: z.boolean().default(false),
    is_daily: z.boolean().default(false),
    max_submissions_per_session: challengeFieldShape.max_submissions_per_session.default(10),
    max_submissions_per_day: challengeFieldShape.max_submissions_per_day.default(null),
    final_submissions: challengeFieldShape.final_submissions.default(2),
    freeze_minutes: challengeFieldShape.freeze_minutes.default(0),
    match: challengeFieldShape.match.default(null),
  })
  .strict()
  .refine(windowIsOrdered, WINDOW_MESSAGE);
export type CreateChallengeBody = z.infer<typeof createChallengeBody>;

export const patchChallengeBody = z
  .object(challengeFieldShape)
  .partial()
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'at least one field is required')
  .refine(windowIsOrdered, WINDOW_MESSAGE);
export type PatchChallengeBody = z.infer<typeof patchChallengeBody>;

export const quarantineBody = z
  .object({ reason: safeText(1000, 1).refine((s) => s.trim().length > 0, 'must not be blank') })
  .strict();

export const createEntryBody = z.object({ agent_id: z.string().uuid() }).strict();
