/**
 * The leaderboard of a match challenge (GET /api/v1/leaderboards/{id}): its entrants ranked by
 * their rating's ordinal in the challenge's weight class, with the usual columns plus `rating`,
 * `matches`, `wins`, `draws`, `losses` (rated matches of this challenge) and `provisional`.
 */
import type { Queryable } from '../../db/pool';
import { listMatchBoard, type MatchBoardRow } from '../../db/queries/entries';
import { challengeRecords } from '../../db/queries/match-participants';
import { validationError } from '../../errors';
import { decodeCursor, encodeCursor } from '../../lib/keyset-cursor';
import type { Pagination } from '../../lib/pagination';
import { byShownOrdinal, ratingBeforeHeld, recordBeforeHeld, type RecentRatedOutcome } from './hold';
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

/**
 * `held` (pages only, hold.ts): agents' rated matches the viewer may not see yet; their ratings and
 * records are shown as they stood before, and the first page is ranked by what is shown. Only a
 * first page (no cursor) is held: the pages show no other.
 */
export async function matchLeaderboard(
  db: Queryable,
  challenge: { id: string; weight_class_id: string },
  query: { cursor?: string; limit: number },
  held?: Map<string, RecentRatedOutcome[]>,
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
  if (held && held.size > 0 && !after) return heldBoard(db, challenge, query.limit, held);
  const page = await listMatchBoard(db, {
    challengeId: challenge.id,
    weightClassId: challenge.weight_class_id,
    limit: query.limit,
    after,
  });
  const hasMore = page.rows.length > query.limit;
  const rows = hasMore ? page.rows.slice(0, query.limit) : page.rows;
  const records = await challengeRecords(db, challenge.id);
  const entries = rows.map((row, i) => toEntry(row, records.get(row.agent_id), page.before + i + 1));
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

type ChallengeRecord = { matches: number; wins: number; draws: number; losses: number };

function toEntry(row: MatchBoardRow, record: ChallengeRecord | undefined, rank: number): MatchBoardEntry {
  const rating =
    row.mu !== null && row.sigma !== null
      ? ratingView({ mu: row.mu, sigma: row.sigma })
      : ratingView(INITIAL_SKILL);
  return {
    rank,
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
}

/**
 * The first page as it stood before the held matches. Whoever belongs on it is among the first
 * `limit` + (held agents) rows by stored rating, or is a held agent (fetched by id): only held
 * agents' shown ratings differ from the stored ones.
 */
async function heldBoard(
  db: Queryable,
  challenge: { id: string; weight_class_id: string },
  limit: number,
  held: Map<string, RecentRatedOutcome[]>,
): Promise<{ entries: MatchBoardEntry[]; pagination: Pagination }> {
  const c = { challengeId: challenge.id, weightClassId: challenge.weight_class_id };
  const [top, ofHeld, records] = await Promise.all([
    listMatchBoard(db, { ...c, limit: limit + held.size }),
    listMatchBoard(db, { ...c, limit: held.size, agentIds: [...held.keys()] }),
    challengeRecords(db, challenge.id),
  ]);
  const rows = new Map<string, MatchBoardRow>();
  for (const row of [...top.rows, ...ofHeld.rows]) {
    if (rows.has(row.agent_id)) continue;
    const agentHeld = held.get(row.agent_id);
    if (!agentHeld) {
      rows.set(row.agent_id, row);
      continue;
    }
    const stored = {
      mu: row.mu ?? INITIAL_SKILL.mu,
      sigma: row.sigma ?? INITIAL_SKILL.sigma,
      ordinal: row.ordinal ?? 0,
      matches: row.class_matches ?? 0,
      wins: 0,
      draws: 0,
      losses: 0,
    };
    const before = row.mu === null ? stored : ratingBeforeHeld(stored, agentHeld);
    rows.set(row.agent_id, {
      ...row,
      mu: before ? before.mu : null,
      sigma: before ? before.sigma : null,
      ordinal: before ? before.ordinal : null,
      class_matches: before ? before.matches : 0,
    });
  }
  const ranked = byShownOrdinal([...rows.values()].map((r) => ({ ...r, ordinal: r.ordinal ?? 0 }))).slice(
    0,
    limit,
  );
  const entries = ranked.map((row, i) => {
    const record = records.get(row.agent_id);
    return toEntry(
      row,
      record ? recordBeforeHeld(record, held.get(row.agent_id), challenge.id) : undefined,
      i + 1,
    );
  });
  const last = ranked[ranked.length - 1];
  const hasMore = top.total > limit;
  return {
    entries,
    pagination: {
      total: top.total,
      limit,
      has_more: hasMore,
      next_cursor: hasMore && last ? encodeCursor([last.ordinal, last.agent_id]) : null,
    },
  };
}
