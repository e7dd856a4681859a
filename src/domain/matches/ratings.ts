/**
 * Ratings per (agent, weight class): the single writer that applies rated matches, and the ladder
 * read (GET /api/v1/ratings).
 *
 * Exactly once, in completion order, set-based: the apply step holds the weight class's advisory
 * lock (the same lock a rated match's completion holds while it takes its `completed_seq`), reads
 * every complete rated match of the class without a `rating_updates` row with its participants in
 * one statement (`completed_seq` order), folds openskill's update over them in memory, and writes
 * the `rating_updates` rows, the participants' before/after and each agent's final rating in three
 * statements, all in one transaction. Running it twice, concurrently or after a crash, applies
 * nothing twice and nothing out of order: the second writer waits on the lock and then finds
 * nothing pending; a crash rolls the whole batch back.
 */
import type { Pool, PoolClient } from 'pg';
import { validationError } from '../../errors';
import { withTransaction, type Queryable } from '../../db/pool';
import { recordRatingChanges } from '../../db/queries/match-participants';
import {
  insertRatingUpdates,
  listPendingRatedParticipants,
  type PendingRatedParticipantRow,
} from '../../db/queries/rating-updates';
import { bumpMatchBoardsOfClass } from '../../db/queries/leaderboard-versions';
import {
  countRatingsAbove,
  findRatings,
  listRatings,
  lockWeightClassRatings,
  saveRatings,
  type RatingListRow,
} from '../../db/queries/ratings';
import { decodeCursor, encodeCursor, keysetPage } from '../../lib/keyset-cursor';
import type { Pagination } from '../../lib/pagination';
import { byShownOrdinal, ratingBeforeHeld, type RecentRatedOutcome } from './hold';
import { INITIAL_SKILL, rateMatch, ratingRank, ratingView, type RatingView, type Skill } from './rules';
import { toRatingRowView, type RatingRowView } from './views';

/** A complete rated match waiting for its rating update. */
export interface PendingRatedMatch {
  matchId: string;
  completedSeq: string;
  completedAt: Date | null;
  participants: {
    agentId: string;
    rank: number | null;
    outcome: 'win' | 'loss' | 'draw' | 'forfeit' | null;
  }[];
}

/** What one batch writes: each participant's before/after, and each agent's rating after the batch. */
export interface RatingsBatch {
  changes: { matchId: string; agentId: string; before: RatingView; after: RatingView }[];
  agents: Map<
    string,
    { after: RatingView; matches: number; wins: number; draws: number; losses: number; lastMatchAt: Date }
  >;
}

/** Rows by completed_seq then seat → one entry per match, in the same order. */
export function groupPendingRows(rows: PendingRatedParticipantRow[]): PendingRatedMatch[] {
  const matches: PendingRatedMatch[] = [];
  for (const row of rows) {
    let last = matches[matches.length - 1];
    if (!last || last.matchId !== row.match_id) {
      last = {
        matchId: row.match_id,
        completedSeq: row.completed_seq,
        completedAt: row.completed_at,
        participants: [],
      };
      matches.push(last);
    }
    last.participants.push({ agentId: row.agent_id, rank: row.rank, outcome: row.outcome });
  }
  return matches;
}

/**
 * Openskill's update folded over `matches` in their order, each starting from the skills the
 * previous ones left (`current` holds the ratings before the batch): the same figures as applying
 * them one at a time. `now` stands in for a match without `completed_at`.
 */
export function foldRatings(
  matches: PendingRatedMatch[],
  current: Map<string, Skill>,
  now: Date,
): RatingsBatch {
  const skills = new Map(current);
  const batch: RatingsBatch = { changes: [], agents: new Map() };
  for (const match of matches) {
    const { participants } = match;
    const before = participants.map((p) => skills.get(p.agentId) ?? INITIAL_SKILL);
    const after = rateMatch(
      participants.map((p, i) => ({ skill: before[i], rank: ratingRank(p, participants.length) })),
    );
    const at = match.completedAt ?? now;
    for (const [i, p] of participants.entries()) {
      batch.changes.push({
        matchId: match.matchId,
        agentId: p.agentId,
        before: ratingView(before[i]),
        after: after[i],
      });
      skills.set(p.agentId, after[i]);
      const outcome = p.outcome ?? 'forfeit';
      const agent = batch.agents.get(p.agentId) ?? {
        after: after[i],
        matches: 0,
        wins: 0,
        draws: 0,
        losses: 0,
        lastMatchAt: at,
      };
      agent.after = after[i];
      agent.matches += 1;
      if (outcome === 'win') agent.wins += 1;
      else if (outcome === 'draw') agent.draws += 1;
      else agent.losses += 1;
      agent.lastMatchAt = at;
      batch.agents.set(p.agentId, agent);
    }
  }
  return batch;
}

/** The single writer of a weight class: applies every pending rated match (see the header). */
export async function applyPendingRatings(db: Pool, weightClassId: string): Promise<number> {
  return withTransaction(db, (tx) => applyPendingRatingsIn(tx, weightClassId));
}

/**
 * The same writer inside the caller's transaction (a bout's settlement: the match it just finished
 * is pending in it). Applied only if that transaction commits.
 */
export async function applyPendingRatingsIn(tx: PoolClient, weightClassId: string): Promise<number> {
  // Re-entrant: a transaction that finished a rated match holds it already.
  await lockWeightClassRatings(tx, weightClassId);
  const pending = groupPendingRows(await listPendingRatedParticipants(tx, weightClassId));
  if (pending.length === 0) return 0;
  // Under the lock none of these is applied yet; the key still guards against a writer that
  // does not take the lock (and its RETURNING says which to apply).
  const fresh = await insertRatingUpdates(
    tx,
    weightClassId,
    pending.map((m) => ({ matchId: m.matchId, completedSeq: m.completedSeq })),
  );
  const toApply = pending.filter((m) => fresh.has(m.matchId));
  if (toApply.length === 0) return 0;
  const agentIds = [...new Set(toApply.flatMap((m) => m.participants.map((p) => p.agentId)))];
  const current = await findRatings(tx, weightClassId, agentIds);
  const batch = foldRatings(toApply, current, new Date());
  await recordRatingChanges(tx, batch.changes);
  await saveRatings(
    tx,
    weightClassId,
    [...batch.agents].map(([agentId, a]) => ({
      agentId,
      mu: a.after.mu,
      sigma: a.after.sigma,
      ordinal: a.after.ordinal,
      matches: a.matches,
      wins: a.wins,
      draws: a.draws,
      losses: a.losses,
      lastMatchAt: a.lastMatchAt,
    })),
  );
  await bumpMatchBoardsOfClass(tx, weightClassId);
  return toApply.length;
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
