/**
 * Ratings per (agent, weight class): the single writer that applies rated matches, and the ladder
 * read (GET /api/v1/ratings).
 *
 * Exactly once, in completion order: the apply step holds the weight class's advisory lock (the
 * same lock a rated match's completion holds while it takes its `completed_seq`), reads the
 * class's complete rated matches without a `rating_updates` row in `completed_seq` order, and
 * writes each one's update together with that row (the match id is the key). Running it twice,
 * concurrently or after a crash, applies nothing twice and nothing out of order.
 */
import type { Pool } from 'pg';
import { validationError } from '../../errors';
import { withTransaction, type Queryable } from '../../db/pool';
import { listParticipants, recordRatingChange } from '../../db/queries/match-participants';
import { listUnappliedRatedMatches } from '../../db/queries/matches';
import { insertRatingUpdate } from '../../db/queries/rating-updates';
import { bumpMatchBoardsOfClass } from '../../db/queries/leaderboard-versions';
import {
  countRatingsAbove,
  findRatings,
  listRatings,
  lockWeightClassRatings,
  saveRating,
  type RatingListRow,
} from '../../db/queries/ratings';
import { decodeCursor, encodeCursor, keysetPage } from '../../lib/keyset-cursor';
import type { Pagination } from '../../lib/pagination';
import { byShownOrdinal, ratingBeforeHeld, type RecentRatedOutcome } from './hold';
import { INITIAL_SKILL, rateMatch, ratingRank, ratingView } from './rules';
import { toRatingRowView, type RatingRowView } from './views';

export async function applyPendingRatings(db: Pool, weightClassId: string): Promise<number> {
  return withTransaction(db, async (tx) => {
    await lockWeightClassRatings(tx, weightClassId);
    const pending = await listUnappliedRatedMatches(tx, weightClassId);
    let applied = 0;
    for (const match of pending) {
      const fresh = await insertRatingUpdate(tx, {
        matchId: match.id,
        weightClassId,
        completedSeq: match.completed_seq!,
      });
      if (!fresh) continue;
      const participants = await listParticipants(tx, [match.id]);
      const current = await findRatings(
        tx,
        weightClassId,
        participants.map((p) => p.agent_id),
      );
      const before = participants.map((p) => current.get(p.agent_id) ?? INITIAL_SKILL);
      const after = rateMatch(
        participants.map((p, i) => ({ skill: before[i], rank: ratingRank(p, participants.length) })),
      );
      for (const [i, p] of participants.entries()) {
        await recordRatingChange(tx, match.id, p.agent_id, ratingView(before[i]), after[i]);
        await saveRating(tx, {
          weightClassId,
          agentId: p.agent_id,
          mu: after[i].mu,
          sigma: after[i].sigma,
          ordinal: after[i].ordinal,
          outcome: p.outcome ?? 'forfeit',
          at: match.completed_at ?? new Date(),
        });
      }
      applied += 1;
    }
    if (applied > 0) await bumpMatchBoardsOfClass(tx, weightClassId);
    return applied;
  });
}

const badCursor = () => validationError('query.cursor: not a cursor of this listing');

/**
 * GET /api/v1/ratings: a weight class's ratings by ordinal, keyset-paged. `held` (pages only,
 * hold.ts): agents' rated matches the viewer may not see yet; their ratings are shown as they stood
 * before them (an agent rated only by held matches is not listed), and the first page is ranked by
 * what is shown.
 */
export async function listRatingsPage(
  db: Queryable,
  query: { weight_class_id: string; limit: number; cursor?: string },
  held?: Map<string, RecentRatedOutcome[]>,
): Promise<{ rows: RatingRowView[]; pagination: Pagination }> {
  if (held && held.size > 0 && !query.cursor) return heldRatingsPage(db, query, held);
  const after = query.cursor
    ? decodeCursor(
        query.cursor,
        (parts) =>
          parts.length === 2 &&
          typeof parts[0] === 'number' &&
          Number.isFinite(parts[0]) &&
          typeof parts[1] === 'string' &&
          /^[0-9a-f-]{36}$/i.test(parts[1])
            ? { ordinal: parts[0], agentId: parts[1] }
            : null,
        badCursor,
      )
    : undefined;
  const rows = await listRatings(db, query.weight_class_id, { limit: query.limit, after });
  const offset = after ? await countRatingsAbove(db, query.weight_class_id, after) : 0;
  const page = keysetPage(rows, query.limit, (last) => encodeCursor([last.ordinal, last.agent_id]));
  return {
    rows: page.rows.map((r, i) => toRatingRowView(r, offset + i + 1)),
    pagination: page.pagination,
  };
}

/** The first page before the held matches (whoever belongs on it: as in board.ts heldBoard). */
async function heldRatingsPage(
  db: Queryable,
  query: { weight_class_id: string; limit: number },
  held: Map<string, RecentRatedOutcome[]>,
): Promise<{ rows: RatingRowView[]; pagination: Pagination }> {
  const [top, ofHeld] = await Promise.all([
    listRatings(db, query.weight_class_id, { limit: query.limit + held.size }),
    listRatings(db, query.weight_class_id, { limit: held.size, agentIds: [...held.keys()] }),
  ]);
  const rows = new Map<string, RatingListRow>();
  for (const row of [...top, ...ofHeld]) {
    if (rows.has(row.agent_id)) continue;
    const shown = ratingBeforeHeld(row, held.get(row.agent_id));
    if (shown) rows.set(row.agent_id, shown);
  }
  const ranked = byShownOrdinal([...rows.values()]);
  const page = ranked.slice(0, query.limit);
  const hasMore = ranked.length > query.limit || top.length > query.limit + held.size;
  const last = page[page.length - 1];
  return {
    rows: page.map((r, i) => toRatingRowView(r, i + 1)),
    pagination: {
      limit: query.limit,
      has_more: hasMore,
      next_cursor: hasMore && last ? encodeCursor([last.ordinal, last.agent_id]) : null,
    },
  };
}
