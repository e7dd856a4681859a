/** Reading matches: one, a challenge's, an agent's (newest first, keyset-paged), and a match's result. */
import type { Principal } from '../../auth/principal';
import type { Queryable } from '../../db/pool';
import { findAgentById } from '../../db/queries/agents';
import { findChallengeById } from '../../db/queries/challenges';
import { listParticipants } from '../../db/queries/match-participants';
import {
  findMatchById,
  findMatchByIdOrResultId,
  listMatches,
  type MatchRow,
  type MatchStatus,
} from '../../db/queries/matches';
import { notFound, validationError } from '../../errors';
import { decodeTimeIdCursor, encodeTimeIdCursor, keysetPage } from '../../lib/keyset-cursor';
import type { Pagination } from '../../lib/pagination';
import { canSeeMatchesOf } from './policy';
import { toMatchResultView, toMatchView, type MatchResultView, type MatchView } from './views';

async function visibleMatch(db: Queryable, principal: Principal, match: MatchRow | null): Promise<MatchRow> {
  if (!match) throw notFound('match');
  const challenge = await findChallengeById(db, match.challenge_id);
  if (!challenge || !canSeeMatchesOf(principal, challenge)) throw notFound('match');
  return match;
}

export async function getMatch(db: Queryable, principal: Principal, id: string): Promise<MatchView> {
  const match = await visibleMatch(db, principal, await findMatchById(db, id));
  return toMatchView(match, await listParticipants(db, [match.id]));
}

/** The match result by result id or match id; null when `id` names no match (the caller tries submissions). */
export async function findMatchResult(
  db: Queryable,
  principal: Principal,
  id: string,
): Promise<MatchResultView | null> {
  const match = await findMatchByIdOrResultId(db, id);
  if (!match) return null;
  await visibleMatch(db, principal, match);
  if (match.status !== 'complete' && match.status !== 'void') throw notFound('result');
  return toMatchResultView(match, await listParticipants(db, [match.id]));
}

const badCursor = () => validationError('query.cursor: not a cursor of this listing');

export async function listMatchesPage(
  db: Queryable,
  principal: Principal,
  filter: {
    challengeId?: string;
    agentId?: string;
    status?: MatchStatus;
    limit: number;
    cursor?: string;
  },
): Promise<{ data: MatchView[]; pagination: Pagination }> {
  if (filter.challengeId) {
    const challenge = await findChallengeById(db, filter.challengeId);
    if (!challenge || !canSeeMatchesOf(principal, challenge)) throw notFound('challenge');
  }
  if (filter.agentId && !filter.challengeId) {
    if (!(await findAgentById(db, filter.agentId))) throw notFound('agent');
  }
  const after = filter.cursor ? decodeTimeIdCursor(filter.cursor, badCursor) : null;
  const rows = await listMatches(db, {
    challengeId: filter.challengeId,
    agentId: filter.agentId,
    status: filter.status,
    after: after ? { scheduledAt: after.createdAt, id: after.id } : undefined,
    limit: filter.limit,
  });
  const page = keysetPage(rows, filter.limit, (last) =>
    encodeTimeIdCursor({ createdAt: last.scheduled_at_key!, id: last.id }),
  );
  const participants = await listParticipants(
    db,
    page.rows.map((m) => m.id),
  );
  return { data: page.rows.map((m) => toMatchView(m, participants)), pagination: page.pagination };
}

/** The connector's `assigned` item of a bout entry: `match: {id, ends_at, opponents}` per match id. */
export async function boutAssignments(
  db: Queryable,
  agentId: string,
  matches: { matchId: string; endsAt: Date | null }[],
): Promise<
  Map<string, { id: string; ends_at: string | null; opponents: { agent_id: string; agent_name: string }[] }>
> {
  const participants = await listParticipants(
    db,
    matches.map((m) => m.matchId),
  );
  return new Map(
    matches.map((m) => [
      m.matchId,
      {
        id: m.matchId,
        ends_at: m.endsAt ? m.endsAt.toISOString() : null,
        opponents: participants
          .filter((p) => p.match_id === m.matchId && p.agent_id !== agentId)
          .map((p) => ({ agent_id: p.agent_id, agent_name: p.agent_name })),
      },
    ]),
  );
}
