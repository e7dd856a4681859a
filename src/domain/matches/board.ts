/**
 * The leaderboard of a match challenge (GET /api/v1/leaderboards/{id}): its entrants ranked by
 * their rating's ordinal in the challenge's weight class, with the usual columns plus `rating`,
 * `matches`, `wins`, `draws`, `losses` (rated matches of this challenge) and `provisional`.
 */
import type { Queryable } from '../../db/pool';
import { listMatchBoard } from '../../db/queries/entries';
import { challengeRecords } from '../../db/queries/match-participants';
import { validationError } from '../../errors';
import { decodeCursor, encodeCursor } from '../../lib/keyset-cursor';
import type { Pagination } from '../../lib/pagination';
import { INITIAL_SKILL, isProvisional, ratingView, type RatingView } from './rules';

export interface MatchBoardEntry {
  rank: number;
  agent_id: string;
  agent_name: string;
  best_score: number | null;
  best_submission_id: string | null;
  submission_count: number;
  last_submitted_at: string | null;
  rating: RatingView;
  matches: number;
  wins: number;
  draws: number;
  losses: number;
  provisional: boolean;
}

export async function matchLeaderboard(
  db: Queryable,
  challenge: { id: string; weight_class_id: string },
  query: { cursor?: string; limit: number },
): Promise<{ entries: MatchBoardEntry[]; pagination: Pagination }> {
  const after = query.cursor
    ? decodeCursor(
        query.cursor,
        (parts) =>
          parts.length === 2 &&
          typeof parts[0] === 'number' &&
          typeof parts[1] === 'string' &&
          /^[0-9a-f-]{36}$/i.test(parts[1])
            ? { ordinal: parts[0], agentId: parts[1] }
            : null,
        () => validationError('query.cursor: invalid cursor (use next_cursor from the previous page)'),
      )
    : undefined;
  const page = await listMatchBoard(db, {
    challengeId: challenge.id,
    weightClassId: challenge.weight_class_id,
    limit: query.limit,
    after,
  });
  const hasMore = page.rows.length > query.limit;
  const rows = hasMore ? page.rows.slice(0, query.limit) : page.rows;
  const records = await challengeRecords(db, challenge.id);
  const entries = rows.map((row, i): MatchBoardEntry => {
    const record = records.get(row.agent_id);
    const rating =
      row.mu !== null && row.sigma !== null
        ? ratingView({ mu: row.mu, sigma: row.sigma })
        : ratingView(INITIAL_SKILL);
    return {
      rank: page.before + i + 1,
      agent_id: row.agent_id,
      agent_name: row.agent_name,
      best_score: row.best_score === null ? null : Number(row.best_score),
      best_submission_id: row.best_submission_id,
      submission_count: row.submission_count ?? 0,
      last_submitted_at: row.last_submitted_at ? row.last_submitted_at.toISOString() : null,
      rating,
      matches: record?.matches ?? 0,
      wins: record?.wins ?? 0,
      draws: record?.draws ?? 0,
      losses: record?.losses ?? 0,
      provisional: isProvisional(row.class_matches ?? 0),
    };
  });
  const last = rows[rows.length - 1];
  return {
    entries,
    pagination: {
      total: page.total,
      limit: query.limit,
      has_more: hasMore,
      next_cursor: hasMore && last ? encodeCursor([last.ordinal ?? 0, last.agent_id]) : null,
    },
  };
}
