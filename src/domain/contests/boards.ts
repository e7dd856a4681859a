/**
 * The two boards fair contests add to the live one (src/domain/leaderboard.ts): the board as it
 * froze (the last `freeze_minutes` before the end, for everyone but operators) and the final board
 * (`?board=final`: each agent's counted submission with the best private score).
 */
import type { Principal } from '../../auth/principal';
import type { Queryable } from '../../db/pool';
import { findChallengeStatus } from '../../db/queries/leaderboard';
import {
  boardAsOf,
  challengeHasPrivateScores,
  countPendingPrivatePasses,
  finalBoardMark,
  listFinalCandidates,
  type FrozenBoardRow,
} from '../../db/queries/results';
import { findChallengeById } from '../../db/queries/challenges';
import { countLiveEntriesBefore } from '../../db/queries/entries';
import { notFound, ServiceError, validationError } from '../../errors';
import type { Pagination } from '../../lib/pagination';
import { canSeeChallenge } from '../challenges/policy';
import { mayReadFinalBoard, seesLiveBoard } from './policy';
import { finalBoardWaits, frozenSince, rankFinalBoard, type FinalRow } from './rules';

export type { FrozenBoardRow };

/** When the board this caller sees froze (null: the caller sees the live board). */
export function frozenFor(
  principal: Principal,
  challenge: { status: string; ends_at: Date | null; freeze_minutes: number },
  now: Date = new Date(),
): Date | null {
  if (seesLiveBoard(principal)) return null;
  return frozenSince(challenge, now);
}

/**
 * Challenges as this caller may see their `entry_count`: during a freeze, everyone but operators
 * reads the count as the board froze (DESIGN "Fifth-round extensions": a count that moves tells who
 * is still joining); one statement for the frozen ones of a page, nothing for the others.
 */
export async function withPublicEntryCounts<
  R extends { id: string; status: string; ends_at: Date | null; freeze_minutes: number; entry_count: number },
>(db: Queryable, principal: Principal, rows: R[], now: Date = new Date()): Promise<R[]> {
  const frozen = rows.flatMap((row) => {
    const since = frozenFor(principal, row, now);
    return since ? [{ challengeId: row.id, before: since }] : [];
  });
  if (frozen.length === 0) return rows;
  const counts = await countLiveEntriesBefore(db, frozen);
  return rows.map((row) => {
    const count = counts.get(row.id);
    return count === undefined ? row : { ...row, entry_count: count };
  });
}

/** One challenge as this caller may see its `entry_count` (withPublicEntryCounts). */
export async function withPublicEntryCount<
  R extends { id: string; status: string; ends_at: Date | null; freeze_minutes: number; entry_count: number },
>(db: Queryable, principal: Principal, row: R, now: Date = new Date()): Promise<R> {
  return (await withPublicEntryCounts(db, principal, [row], now))[0];
}

/** The public board as it stood when it froze, ranked as the live one. */
export function frozenBoard(db: Queryable, challengeId: string, since: Date): Promise<FrozenBoardRow[]> {
  return boardAsOf(db, challengeId, since);
}

/**
 * The final board: public once the challenge is complete, operators anytime; 404 NOT_FOUND for
 * everyone else before (and for a challenge the caller may not see).
 */
export async function getFinalBoard(
  db: Queryable,
  principal: Principal,
  challengeId: string,
): Promise<FinalBoard> {
  const status = await findChallengeStatus(db, challengeId);
  if (!status || !canSeeChallenge(principal, status)) throw notFound('challenge');
  if (!mayReadFinalBoard(principal, status.status))
    throw new ServiceError('NOT_FOUND', 'the final board is shown once the challenge is complete');
  return finalBoard(db, challengeId, status.status);
}

/** The final board's rows, and how many counted results still wait for their private pass. */
export interface FinalBoard {
  rows: FinalRow[];
  pending: number;
}

/** The final board of a challenge in this status: no rows while it waits for private passes. */
export async function finalBoard(db: Queryable, challengeId: string, status: string): Promise<FinalBoard> {
  const pending = await countPendingPrivatePasses(db, challengeId);
  if (finalBoardWaits(status, pending)) return { rows: [], pending };
  return { rows: await finalBoardRows(db, challengeId), pending };
}

/**
 * What the final board's cache is keyed by beside the leaderboard's version: the private passes
 * move the final board but never the public one (whose version competitors read as an ETag).
 */
export function finalBoardVersion(db: Queryable, challengeId: string): Promise<string> {
  return finalBoardMark(db, challengeId);
}

/** The final board's rows, for callers that already decided the reader may see them (CSV, pages). */
export async function finalBoardRows(db: Queryable, challengeId: string): Promise<FinalRow[]> {
  const [challenge, candidates, hasPrivate] = await Promise.all([
    findChallengeById(db, challengeId),
    listFinalCandidates(db, challengeId),
    challengeHasPrivateScores(db, challengeId),
  ]);
  if (!challenge) throw notFound('challenge');
  return rankFinalBoard(
    candidates.map((c) => ({
      ...c,
      final_score: Number(c.final_score),
      private_score: c.private_score === null ? null : Number(c.private_score),
    })),
    challenge.final_submissions,
    hasPrivate,
  );
}

/** A page of the final board; the cursor is the last rank shown. */
export function finalBoardPage(
  rows: FinalRow[],
  query: { cursor?: string; limit: number },
): { data: FinalRow[]; pagination: Pagination } {
  let from = 0;
  if (query.cursor !== undefined) {
    if (!/^\d{1,7}$/.test(query.cursor))
      throw validationError('query.cursor: invalid cursor (use next_cursor from the previous page)');
    from = Number(query.cursor);
  }
  const data = rows.slice(from, from + query.limit);
  const hasMore = from + query.limit < rows.length;
  return {
    data,
    pagination: {
      total: rows.length,
      limit: query.limit,
      has_more: hasMore,
      next_cursor: hasMore ? String(from + data.length) : null,
    },
  };
}
