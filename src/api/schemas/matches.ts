import { z } from 'zod';
import { MATCH_SETTINGS_DEFAULTS, MATCH_SETTINGS_RANGES } from '../../domain/matches/rules';
import type { MatchView, MatchResultView, RatingRowView } from '../../domain/matches/views';
import { queryInt, safeText } from './common';

const ranged = (field: keyof typeof MATCH_SETTINGS_RANGES) =>
  z
    .number()
    .int()
    .min(MATCH_SETTINGS_RANGES[field][0])
    .max(MATCH_SETTINGS_RANGES[field][1])
    .openapi({ default: MATCH_SETTINGS_DEFAULTS[field] });

/** What operators write (every field optional: defaults on create, merged on edit). */
export const matchSettingsInput = z
  .object({
    players: ranged('players'),
    every_minutes: ranged('every_minutes'),
    rematch_after_minutes: ranged('rematch_after_minutes'),
    max_per_pair_per_day: ranged('max_per_pair_per_day'),
    max_per_agent_per_hour: ranged('max_per_agent_per_hour'),
    rated: z.boolean().openapi({ default: true }),
  })
  .partial()
  .strict()
  .openapi('MatchSettingsInput');

export const matchSettingsSchema = z
  .object({
    players: z.number().int(),
    every_minutes: z.number().int(),
    rematch_after_minutes: z.number().int(),
    max_per_pair_per_day: z.number().int(),
    max_per_agent_per_hour: z.number().int(),
    rated: z.boolean(),
  })
  .openapi('MatchSettings');

export const ratingSchema = z
  .object({ mu: z.number(), sigma: z.number(), ordinal: z.number() })
  .openapi('Rating', { example: { mu: 27.64, sigma: 8.07, ordinal: 3.44 } });

export const matchSchema = z
  .object({
    id: z.string().uuid(),
    challenge_id: z.string().uuid(),
    weight_class_id: z.string(),
    kind: z.enum(['bout', 'game']),
    status: z.enum(['scheduled', 'running', 'complete', 'void']),
    rated: z.boolean(),
    reason: z.string().nullable(),
    participants: z.array(
      z.object({
        agent_id: z.string().uuid(),
        agent_name: z.string(),
        seat: z.number().int(),
        submission_id: z.string().uuid().nullable(),
        score: z.number().nullable(),
        rank: z.number().int().nullable(),
        outcome: z.enum(['win', 'loss', 'draw', 'forfeit']).nullable(),
        rating_before: ratingSchema.nullable(),
        rating_after: ratingSchema.nullable(),
      }),
    ),
    scheduled_at: z.string(),
    started_at: z.string().nullable(),
    ends_at: z.string().nullable(),
    completed_at: z.string().nullable(),
    result_id: z.string().uuid().nullable(),
  })
  .openapi('Match') satisfies z.ZodType<MatchView>;

export const matchResultSchema = z
  .object({
    id: z.string().uuid(),
    kind: z.literal('match'),
    match_id: z.string().uuid(),
    challenge_id: z.string().uuid(),
    result_state: z.enum(['scored', 'void']),
    placements: z.array(
      z.object({
        agent_id: z.string().uuid(),
        rank: z.number().int().nullable(),
        score: z.number().nullable(),
        outcome: z.enum(['win', 'loss', 'draw', 'forfeit']).nullable(),
      }),
    ),
    judged_at: z.string().nullable(),
  })
  .openapi('MatchResult') satisfies z.ZodType<MatchResultView>;

export const ratingRowSchema = z
  .object({
    rank: z.number().int(),
    agent_id: z.string().uuid(),
    agent_name: z.string(),
    mu: z.number(),
    sigma: z.number(),
    ordinal: z.number(),
    matches: z.number().int(),
    wins: z.number().int(),
    draws: z.number().int(),
    losses: z.number().int(),
    provisional: z.boolean(),
    last_match_at: z.string().nullable(),
  })
  .openapi('RatingRow') satisfies z.ZodType<RatingRowView>;

export const listMatchesQuery = z.object({
  status: z.enum(['scheduled', 'running', 'complete', 'void']).optional(),
  agent_id: z.string().uuid().optional(),
  limit: queryInt(1, 100, 20),
  cursor: z.string().max(400).optional(),
});

export const agentMatchesQuery = listMatchesQuery.omit({ agent_id: true });

export const ratingsQuery = z.object({
  weight_class_id: safeText(100, 1),
  limit: queryInt(1, 100, 50),
  cursor: z.string().max(400).optional(),
});

export const createMatchBody = z
  .object({
    agent_ids: z.array(z.string().uuid()).min(2).max(8),
    rated: z.boolean().default(false),
  })
  .strict();

export const voidMatchBody = z
  .object({ reason: safeText(1000, 1).refine((s) => s.trim().length > 0, 'must not be blank') })
  .strict();
