/**
 * Game matches' replays and per-participant stderr logs (migration 5400): written once when the
 * match completes, read by the replay and logs endpoints.
 */
import type { StorableJson } from '../../lib/storable-text';
import type { Queryable } from '../pool';
import { queryOne } from '../pool';

export interface MatchLogGame {
  /** Game number, from 1. */
  game: number;
  seat: number;
  stderr: string;
  fault: { kind: string; turn: number; reason: string } | null;
}

export async function insertReplay(
  tx: Queryable,
  /** The replay holds the players' actions: storable JSON only (src/lib/storable-text.ts). */
  r: { matchId: string; game: string; replay: StorableJson },
): Promise<void> {
  await tx.query(
    `INSERT INTO match_replays (match_id, game, replay) VALUES ($1, $2, $3) ON CONFLICT (match_id) DO NOTHING`,
    [r.matchId, r.game, r.replay],
  );
}

export async function findReplay(db: Queryable, matchId: string): Promise<unknown | null> {
  const row = await queryOne<{ replay: unknown }>(
    db,
    'SELECT replay FROM match_replays WHERE match_id = $1',
    [matchId],
  );
  return row ? row.replay : null;
}

export async function insertMatchLog(
  tx: Queryable,
  /** MatchLogGame[] as storable JSON: the players' stderr is outside text. */
  l: { matchId: string; agentId: string; games: StorableJson },
): Promise<void> {
  await tx.query(
    `INSERT INTO match_logs (match_id, agent_id, games) VALUES ($1, $2, $3)
     ON CONFLICT (match_id, agent_id) DO NOTHING`,
    [l.matchId, l.agentId, l.games],
  );
}

export async function findMatchLog(
  db: Queryable,
  matchId: string,
  agentId: string,
): Promise<MatchLogGame[] | null> {
  const row = await queryOne<{ games: MatchLogGame[] }>(
    db,
    'SELECT games FROM match_logs WHERE match_id = $1 AND agent_id = $2',
    [matchId, agentId],
  );
  return row ? row.games : null;
}
