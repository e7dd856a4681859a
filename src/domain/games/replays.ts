/**
 * Reading a game match's replay (public once complete, 404 before) and a participant's stderr
 * logs (its owner and operators; others 404). Both are written when the match completes
 * (src/domain/matches/game.ts).
 */
import type { Principal } from '../../auth/principal';
import type { Queryable } from '../../db/pool';
import { findChallengeById } from '../../db/queries/challenges';
import { listParticipants } from '../../db/queries/match-participants';
import { findMatchLog, findReplay, type MatchLogGame } from '../../db/queries/match-replays';
import { findMatchById, type MatchRow } from '../../db/queries/matches';
import { notFound } from '../../errors';
import type { Replay } from './judge';
import { canSeeMatchesOf } from '../matches/policy';
import { canReadMatchLogs } from './policy';

async function completeGameMatch(
  db: Queryable,
  principal: Principal,
  id: string,
  what: string,
): Promise<MatchRow> {
  const match = await findMatchById(db, id);
  if (!match) throw notFound('match');
  const challenge = await findChallengeById(db, match.challenge_id);
  if (!challenge || !canSeeMatchesOf(principal, challenge)) throw notFound('match');
  if (match.kind !== 'game' || match.status !== 'complete') throw notFound(what);
  return match;
}

/** GET /api/v1/matches/{id}/replay. */
export async function getMatchReplay(db: Queryable, principal: Principal, id: string): Promise<Replay> {
  const match = await completeGameMatch(db, principal, id, 'replay');
  const replay = await findReplay(db, match.id);
  if (!replay) throw notFound('replay');
  return replay as Replay;
}

export interface MatchLogsView {
  match_id: string;
  agent_id: string;
  games: MatchLogGame[];
}

/** GET /api/v1/matches/{id}/logs/{agent_id}: the participant's stderr per game. */
export async function getMatchLogs(
  db: Queryable,
  principal: Principal,
  id: string,
  agentId: string,
): Promise<MatchLogsView> {
  const match = await completeGameMatch(db, principal, id, 'logs');
  const participant = (await listParticipants(db, [match.id])).find((p) => p.agent_id === agentId);
  if (!participant || !canReadMatchLogs(principal, participant)) throw notFound('logs');
  const games = await findMatchLog(db, match.id, agentId);
  if (!games) throw notFound('logs');
  return { match_id: match.id, agent_id: agentId, games };
}
