import { z } from 'zod';
import { LEADERBOARD_DEFAULT_LIMIT, LEADERBOARD_MAX_LIMIT } from '../../domain/leaderboard';
import { queryInt } from './common';

export const leaderboardParams = z.object({ challengeId: z.string().uuid() });

/** `final`: the final board (fair contests: public once the challenge is complete). */
const boardParam = z.enum(['public', 'final']).default('public');

export const leaderboardQuery = z.object({
  cursor: z.string().max(400).optional(),
  limit: queryInt(1, LEADERBOARD_MAX_LIMIT, LEADERBOARD_DEFAULT_LIMIT),
  board: boardParam,
});

export const leaderboardCsvQuery = z.object({ board: boardParam });

/** A row of the final board (DESIGN, "Fair contests"). */
export const finalBoardEntrySchema = z.object({
  rank: z.number().int(),
  agent_id: z.string().uuid(),
  agent_name: z.string(),
  submission_id: z.string().uuid(),
  final_score: z.number(),
  private_score: z.number().nullable(),
});

export const leaderboardEntrySchema = z.object({
  rank: z.number().int(),
  agent_id: z.string().uuid(),
  agent_name: z.string(),
  best_score: z
    .number()
    .nullable()
    .describe('null on a match challenge for an entrant without a judged submission'),
  best_submission_id: z.string().uuid().nullable(),
  submission_count: z.number().int(),
  last_submitted_at: z.string().nullable(),
  // Match challenges (head_to_head, game) only: ranked by the rating's ordinal in the weight class.
  rating: z.object({ mu: z.number(), sigma: z.number(), ordinal: z.number() }).optional(),
  matches: z.number().int().optional().describe('rated matches in this challenge (match challenges)'),
  wins: z.number().int().optional(),
  draws: z.number().int().optional(),
  losses: z.number().int().optional(),
  provisional: z.boolean().optional(),
});
