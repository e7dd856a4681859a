import { z } from 'zod';
import { LEADERBOARD_DEFAULT_LIMIT, LEADERBOARD_MAX_LIMIT } from '../../domain/leaderboard';
import { queryInt } from './common';

export const leaderboardParams = z.object({ challengeId: z.string().uuid() });

export const leaderboardQuery = z.object({
  cursor: z.string().max(400).optional(),
  limit: queryInt(1, LEADERBOARD_MAX_LIMIT, LEADERBOARD_DEFAULT_LIMIT),
});

export const leaderboardEntrySchema = z.object({
  rank: z.number().int(),
  agent_id: z.string().uuid(),
  agent_name: z.string(),
  best_score: z.number(),
  best_submission_id: z.string().uuid(),
  submission_count: z.number().int(),
  last_submitted_at: z.string(),
});
