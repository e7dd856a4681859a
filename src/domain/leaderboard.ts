import type { Pool } from 'pg';
import { decodeCursor as decodeKeysetCursor, encodeCursor as encodeKeysetCursor } from '../lib/keyset-cursor';
import { notFound, validationError } from '../errors';
import type { Pagination } from '../lib/pagination';
import type { Principal } from '../auth/principal';
import type { Queryable } from '../db/pool';
import {
  findChallengeStatus,
  leaderboardPage,
  type LeaderboardRow,
  type LeaderboardSortKey,
} from '../db/queries/leaderboard';
import { findLeaderboardVersions } from '../db/queries/leaderboard-versions';
import { batchPerTurn } from '../lib/turn-batch';
import { canSeeChallenge } from './challenges/policy';
import { frozenBoard, frozenFor, type FrozenBoardRow } from './contests/boards';
import { frozenSince, type FinalRow } from './contests/rules';
import { findChallengeKind } from '../db/queries/challenges';
import { matchLeaderboard, type MatchBoardEntry } from './matches/board';
import { isMatchFormat } from './matches/rules';

export const LEADERBOARD_DEFAULT_LIMIT = 50;
export const LEADERBOARD_MAX_LIMIT = 100;

/** 404 for an unknown challenge, or a draft one the caller may not see (operators may). */
export async function requireLeaderboardChallenge(
  db: Queryable,
  principal: Principal,
  challengeId: string,
): Promise<{ id: string; status: string; ends_at: Date | null; freeze_minutes: number }> {
  const challenge = await findChallengeStatus(db, challengeId);
  if (!challenge || !canSeeChallenge(principal, challenge)) throw notFound('challenge');
  return challenge;
}

/**
 * Reads the version of everything a leaderboard page or export of a challenge shows: its status
 * (visibility) and the leaderboard's version, which triggers move with every change of its rows or
 * of an agent name on it (migration 2520); null for an unknown challenge. One reader per process:
 * the lookups of one event-loop turn share one statement (each still sees every write committed
 * before it was asked for).
 */
export function leaderboardVersionReader(db: Queryable): (challengeId: string) => Promise<string | null> {
  return batchPerTurn<string, string | null>(async (challengeIds) => {
    const found = await findLeaderboardVersions(db, challengeIds);
    // A freeze starts with the clock, not with a write: the version says when the board froze, so
    // an answer rendered before the freeze is never served as the frozen one.
    return new Map(
      [...found].map(([id, v]) => {
        const since = frozenSince(v);
        return [id, `${v.status}:${v.version}${since ? `:frozen@${since.toISOString()}` : ''}`];
      }),
    );
  }, null);
}

export interface LeaderboardEntry {
  rank: number;
  agent_id: string;
  agent_name: string;
  best_score: number;
  best_submission_id: string;
  submission_count: number;
  last_submitted_at: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SCORE = /^\d{1,3}(\.\d{1,2})?$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Opaque cursor (the one codec, src/lib/keyset-cursor.ts): the last row's sort key `[score, reached_at ISO, agent_id]`. */
export function encodeCursor(key: LeaderboardSortKey): string {
  return encodeKeysetCursor([key.score, key.reachedAt.toISOString(), key.agentId]);
}

/** Decodes a cursor from a previous page; anything else is 400 VALIDATION_ERROR. */
export function decodeCursor(cursor: string): LeaderboardSortKey {
  return decodeKeysetCursor(
    cursor,
    (parts) => {
      if (parts.length !== 3) return null;
      const [score, reachedAt, agentId] = parts;
      if (typeof score !== 'string' || !SCORE.test(score) || Number(score) > 100) return null;
      // Exactly what encodeCursor writes (toISOString of a stored time): other strings Date.parse
      // accepts can lie outside PostgreSQL's timestamp range.
      if (typeof reachedAt !== 'string' || !ISO_UTC.test(reachedAt) || Number.isNaN(Date.parse(reachedAt)))
        return null;
      if (typeof agentId !== 'string' || !UUID.test(agentId)) return null;
      return { score, reachedAt: new Date(reachedAt), agentId };
    },
    () => validationError('query.cursor: invalid cursor (use next_cursor from the previous page)'),
  );
}

function sortKeyOf(row: LeaderboardRow | FrozenBoardRow): LeaderboardSortKey {
  return { score: row.best_score, reachedAt: row.best_reached_at, agentId: row.agent_id };
}

function toEntry(row: LeaderboardRow | FrozenBoardRow, rank: number): LeaderboardEntry {
  return {
    rank,
    agent_id: row.agent_id,
    agent_name: row.agent_name,
    best_score: Number(row.best_score),
    best_submission_id: row.best_submission_id,
    submission_count: row.submission_count,
    last_submitted_at: row.last_submitted_at.toISOString(),
  };
}

/**
 * One page of a challenge's leaderboard: rank by best score (desc), ties by who reached it
 * first, then agent id. Ranks are positions in that total order: the first row of a page is
 * 1 + the rows at or above the cursor (an index-only count), the others follow.
 */
export async function getLeaderboard(
  db: Pool,
  principal: Principal,
  challengeId: string,
  query: { cursor?: string; limit: number },
): Promise<{ entries: LeaderboardEntry[]; pagination: Pagination; frozenSince: Date | null }> {
  const after = query.cursor ? decodeCursor(query.cursor) : null;
  // The freeze (fair contests): everyone but operators sees the board as it stood when it froze.
  const challenge = await findChallengeStatus(db, challengeId);
  if (!challenge || !canSeeChallenge(principal, challenge)) throw notFound('challenge');
  const since = frozenFor(principal, challenge);
  if (since)
    return {
      ...frozenPage(await frozenBoard(db, challengeId, since), after, query.limit),
      frozenSince: since,
    };
  // One statement: the page, its counts and the challenge's status (visibility checked here).
  const page = await leaderboardPage(db, challengeId, after, query.limit + 1, true);
  if (!page.challengeStatus || !canSeeChallenge(principal, { status: page.challengeStatus }))
    throw notFound('challenge');
  const hasMore = page.rows.length > query.limit;
  const rows = hasMore ? page.rows.slice(0, query.limit) : page.rows;
  const entries = rows.map((row, i) => toEntry(row, page.before + i + 1));
  return {
    entries,
    pagination: {
      total: page.total ?? undefined,
      limit: query.limit,
      has_more: hasMore,
      next_cursor: hasMore ? encodeCursor(sortKeyOf(rows[rows.length - 1])) : null,
    },
    frozenSince: null,
  };
}

/** Strictly after the cursor in the board's order (best score desc, reached first, agent id). */
function isAfter(row: FrozenBoardRow, cursor: LeaderboardSortKey): boolean {
  const score = Number(row.best_score);
  const cursorScore = Number(cursor.score);
  if (score !== cursorScore) return score < cursorScore;
  const reached = row.best_reached_at.getTime() - cursor.reachedAt.getTime();
  return reached !== 0 ? reached > 0 : row.agent_id > cursor.agentId;
}

/** A keyset page of the frozen board (computed whole: it is as large as the board). */
function frozenPage(
  rows: FrozenBoardRow[],
  after: LeaderboardSortKey | null,
  limit: number,
): { entries: LeaderboardEntry[]; pagination: Pagination } {
  const start = after ? rows.findIndex((row) => isAfter(row, after)) : 0;
  const from = start < 0 ? rows.length : start;
  const slice = rows.slice(from, from + limit);
  const hasMore = from + limit < rows.length;
  return {
    entries: slice.map((row, i) => toEntry(row, from + i + 1)),
    pagination: {
      total: rows.length,
      limit,
      has_more: hasMore,
      next_cursor: hasMore ? encodeCursor(sortKeyOf(slice[slice.length - 1])) : null,
    },
  };
}

/**
 * GET /leaderboards/{id}: a match challenge (DESIGN "Matches between agents") ranks its entrants by
 * rating (./matches/board.ts); every other format by best score (getLeaderboard).
 */
export async function getAnyLeaderboard(
  db: Pool,
  principal: Principal,
  challengeId: string,
  query: { cursor?: string; limit: number },
): Promise<{ entries: (LeaderboardEntry | MatchBoardEntry)[]; pagination: Pagination }> {
  const kind = await findChallengeKind(db, challengeId);
  if (kind && isMatchFormat(kind.format)) {
    if (!canSeeChallenge(principal, kind)) throw notFound('challenge');
    return matchLeaderboard(db, { id: challengeId, weight_class_id: kind.weight_class_id }, query);
  }
  return getLeaderboard(db, principal, challengeId, query);
}

export const CSV_COLUMNS = [
  'rank',
  'agent_id',
  'agent_name',
  'best_score',
  'best_submission_id',
  'submission_count',
  'last_submitted_at',
] as const;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF, quotes doubled. Text
 * starting with = + - @ (or a tab/CR) is prefixed with ' so spreadsheets do not run it as a formula.
 */
export function csvField(value: string | number): string {
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(values: (string | number)[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}

/**
 * The whole leaderboard as CSV, read page by page (keyset). Built whole (about 120 bytes per
 * agent: 1.2 MB for 10,000) rather than streamed, so the answer can carry a strong ETag over its
 * bytes and a client or cache holding the current copy gets a 304 instead.
 */
export async function leaderboardCsv(
  db: Queryable,
  challengeId: string,
  pageSize = 1000,
  frozenAt: Date | null = null,
): Promise<string> {
  if (frozenAt) {
    const rows = await frozenBoard(db, challengeId, frozenAt);
    return [
      csvLine([...CSV_COLUMNS]),
      ...rows.map((row, i) => {
        const e = toEntry(row, i + 1);
        return csvLine([
          e.rank,
          e.agent_id,
          e.agent_name,
          e.best_score,
          e.best_submission_id,
          e.submission_count,
          e.last_submitted_at,
        ]);
      }),
    ].join('');
  }
  const chunks: string[] = [];
  for await (const chunk of csvChunks(db, challengeId, pageSize)) chunks.push(chunk);
  return chunks.join('');
}

function csvChunks(db: Queryable, challengeId: string, pageSize: number): AsyncGenerator<string> {
  async function* lines(): AsyncGenerator<string> {
    yield csvLine([...CSV_COLUMNS]);
    let after: LeaderboardSortKey | null = null;
    let rank = 0;
    for (;;) {
      const page = await leaderboardPage(db, challengeId, after, pageSize, false);
      let chunk = '';
      for (const row of page.rows) {
        const e = toEntry(row, ++rank);
        chunk += csvLine([
          e.rank,
          e.agent_id,
          e.agent_name,
          e.best_score,
          e.best_submission_id,
          e.submission_count,
          e.last_submitted_at,
        ]);
      }
      if (chunk) yield chunk;
      if (page.rows.length < pageSize) return;
      after = sortKeyOf(page.rows[page.rows.length - 1]);
    }
  }
  return lines();
}

export const FINAL_CSV_COLUMNS = [
  'rank',
  'agent_id',
  'agent_name',
  'submission_id',
  'final_score',
  'private_score',
] as const;

/** The final board (fair contests) as CSV, with the public board's quoting. */
export function finalBoardCsv(rows: FinalRow[]): string {
  return [
    csvLine([...FINAL_CSV_COLUMNS]),
    ...rows.map((r) =>
      csvLine([r.rank, r.agent_id, r.agent_name, r.submission_id, r.final_score, r.private_score ?? '']),
    ),
  ].join('');
}
