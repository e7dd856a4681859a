import type { Queryable } from '../pool';
import { queryOne } from '../pool';

export interface MatchmakingRoundRow {
  id: string;
  challenge_id: string;
  round_no: number;
  ran_at: Date;
  summary: Record<string, unknown>;
}

/** Records a round once: null when this (challenge, round) was already recorded. */
export function insertRound(
  tx: Queryable,
  r: { challengeId: string; roundNo: number; summary: Record<string, unknown> },
): Promise<MatchmakingRoundRow | null> {
  return queryOne<MatchmakingRoundRow>(
    tx,
    `INSERT INTO matchmaking_rounds (challenge_id, round_no, summary) VALUES ($1, $2, $3)
     ON CONFLICT (challenge_id, round_no) DO NOTHING RETURNING *`,
    [r.challengeId, r.roundNo, JSON.stringify(r.summary)],
  );
}

export function findRound(
  db: Queryable,
  challengeId: string,
  roundNo: number,
): Promise<MatchmakingRoundRow | null> {
  return queryOne<MatchmakingRoundRow>(
    db,
    'SELECT * FROM matchmaking_rounds WHERE challenge_id = $1 AND round_no = $2',
    [challengeId, roundNo],
  );
}

export function findLatestRound(db: Queryable, challengeId: string): Promise<MatchmakingRoundRow | null> {
  return queryOne<MatchmakingRoundRow>(
    db,
    'SELECT * FROM matchmaking_rounds WHERE challenge_id = $1 ORDER BY ran_at DESC, round_no DESC LIMIT 1',
    [challengeId],
  );
}

/** The highest round number recorded for a challenge (a new matchmaker run continues after it). */
export async function lastRoundNo(db: Queryable, challengeId: string): Promise<number> {
  const res = await db.query<{ n: number | null }>(
    'SELECT max(round_no) AS n FROM matchmaking_rounds WHERE challenge_id = $1',
    [challengeId],
  );
  return res.rows[0].n ?? 0;
}
