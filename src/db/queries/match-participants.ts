import type { Queryable } from '../pool';

export interface ParticipantRow {
  match_id: string;
  agent_id: string;
  agent_name: string;
  /** The agent was deleted (agents.deleted_at set): a match not started yet is void. */
  agent_deleted: boolean;
  seat: number;
  owner_user_id: string;
  submission_id: string | null;
  /** numeric(5,2): pg returns a string. */
  score: string | null;
  rank: number | null;
  outcome: 'win' | 'loss' | 'draw' | 'forfeit' | null;
  rating_before: { mu: number; sigma: number; ordinal: number } | null;
  rating_after: { mu: number; sigma: number; ordinal: number } | null;
}

export async function insertParticipants(tx: Queryable, matchId: string, agentIds: string[]): Promise<void> {
  await tx.query(
    `INSERT INTO match_participants (match_id, agent_id, seat, owner_user_id)
     SELECT $1, a.id, t.seat, a.owner_user_id
       FROM unnest($2::uuid[]) WITH ORDINALITY AS t(agent_id, seat) JOIN agents a ON a.id = t.agent_id`,
    [matchId, agentIds],
  );
}

/** The participants of these matches (with the agents' names), by match then seat. */
export async function listParticipants(db: Queryable, matchIds: string[]): Promise<ParticipantRow[]> {
  if (matchIds.length === 0) return [];
  const res = await db.query<ParticipantRow>(
    `SELECT p.*, a.name AS agent_name, a.deleted_at IS NOT NULL AS agent_deleted
       FROM match_participants p JOIN agents a ON a.id = p.agent_id
      WHERE p.match_id = ANY($1::uuid[]) ORDER BY p.match_id, p.seat`,
    [matchIds],
  );
  return res.rows;
}

/** Which of these agents are in a scheduled or running match (any challenge). */
export async function agentsInOpenMatches(db: Queryable, agentIds: string[]): Promise<Set<string>> {
  const res = await db.query<{ agent_id: string }>(
    `SELECT DISTINCT p.agent_id FROM match_participants p JOIN matches m ON m.id = p.match_id
      WHERE p.agent_id = ANY($1::uuid[]) AND m.status IN ('scheduled', 'running')`,
    [agentIds],
  );
  return new Set(res.rows.map((r) => r.agent_id));
}

/** How often each pair of these agents met in this challenge in the last 24 h, and when last. */
export async function pairHistory(
  db: Queryable,
  challengeId: string,
  agentIds: string[],
): Promise<{ a: string; b: string; count_last_day: number; last_met_at: Date }[]> {
  const res = await db.query<{ a: string; b: string; count_last_day: number; last_met_at: Date }>(
    `SELECT p1.agent_id AS a, p2.agent_id AS b, count(*)::int AS count_last_day, max(m.scheduled_at) AS last_met_at
       FROM matches m
       JOIN match_participants p1 ON p1.match_id = m.id
       JOIN match_participants p2 ON p2.match_id = m.id AND p2.agent_id > p1.agent_id
      WHERE m.challenge_id = $1 AND m.scheduled_at > now() - interval '24 hours'
        AND p1.agent_id = ANY($2::uuid[]) AND p2.agent_id = ANY($2::uuid[])
      GROUP BY p1.agent_id, p2.agent_id`,
    [challengeId, agentIds],
  );
  return res.rows;
}

/**
 * Per participant of a bout: whether it opened a session on its bout entry, and whether one is
 * still open (the bout ends early once everyone opened and closed one).
 */
export async function boutSessionState(
  db: Queryable,
  matchId: string,
): Promise<{ agent_id: string; opened: boolean; open_now: boolean }[]> {
  const res = await db.query<{ agent_id: string; opened: boolean; open_now: boolean }>(
    `SELECT p.agent_id,
            EXISTS (SELECT 1 FROM sessions s WHERE s.entry_id = e.id) AS opened,
            EXISTS (SELECT 1 FROM sessions s WHERE s.entry_id = e.id AND s.status = 'open') AS open_now
       FROM match_participants p
       LEFT JOIN entries e ON e.match_id = p.match_id AND e.agent_id = p.agent_id
      WHERE p.match_id = $1`,
    [matchId],
  );
  return res.rows;
}

/** Submissions of the bout made before its end that are still being judged. */
export async function countPendingBoutSubmissions(db: Queryable, matchId: string): Promise<number> {
  const res = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n
       FROM matches m
       JOIN entries e ON e.match_id = m.id
       JOIN sessions s ON s.entry_id = e.id
       JOIN submissions sub ON sub.session_id = s.id
      WHERE m.id = $1 AND sub.submitted_at <= m.bout_ended_at
        AND sub.status IN ('received', 'queued', 'judging')`,
    [matchId],
  );
  return res.rows[0].n;
}

/**
 * Each participant's best judged score in the bout: submissions made before its end, current
 * results judged (scored) within `graceMs` after it; the earlier submission wins a tie.
 */
export async function bestBoutScores(
  db: Queryable,
  matchId: string,
  graceMs: number,
): Promise<{ agent_id: string; submission_id: string; score: string }[]> {
  const res = await db.query<{ agent_id: string; submission_id: string; score: string }>(
    `SELECT DISTINCT ON (e.agent_id) e.agent_id, sub.id AS submission_id, r.final_score AS score
       FROM matches m
       JOIN entries e ON e.match_id = m.id
       JOIN sessions s ON s.entry_id = e.id
       JOIN submissions sub ON sub.session_id = s.id
       JOIN results r ON r.submission_id = sub.id AND r.superseded_at IS NULL
      WHERE m.id = $1 AND sub.submitted_at <= m.bout_ended_at
        AND r.result_state = 'scored'
        AND r.judged_at <= m.bout_ended_at + make_interval(secs => $2::double precision / 1000)
      ORDER BY e.agent_id, r.final_score DESC, sub.submitted_at, sub.id`,
    [matchId, graceMs],
  );
  return res.rows;
}

export async function recordPlacement(
  tx: Queryable,
  matchId: string,
  p: {
    agentId: string;
    rank: number | null;
    score: number | null;
    submissionId: string | null;
    outcome: string | null;
  },
): Promise<void> {
  await tx.query(
    `UPDATE match_participants SET rank = $3, score = $4, submission_id = $5, outcome = $6
      WHERE match_id = $1 AND agent_id = $2`,
    [matchId, p.agentId, p.rank, p.score, p.submissionId, p.outcome],
  );
}

/** Each participant's rating before and after its match (one statement for a whole batch). */
export async function recordRatingChanges(
  tx: Queryable,
  changes: {
    matchId: string;
    agentId: string;
    before: { mu: number; sigma: number; ordinal: number };
    after: { mu: number; sigma: number; ordinal: number };
  }[],
): Promise<void> {
  if (changes.length === 0) return;
  await tx.query(
    `UPDATE match_participants p SET rating_before = t.before, rating_after = t.after
       FROM unnest($1::uuid[], $2::uuid[], $3::jsonb[], $4::jsonb[]) AS t(match_id, agent_id, before, after)
      WHERE p.match_id = t.match_id AND p.agent_id = t.agent_id`,
    [
      changes.map((c) => c.matchId),
      changes.map((c) => c.agentId),
      changes.map((c) => JSON.stringify(c.before)),
      changes.map((c) => JSON.stringify(c.after)),
    ],
  );
}

/** Rated complete matches per agent in one challenge: matches, wins, draws, losses (forfeits are losses). */
export async function challengeRecords(
  db: Queryable,
  challengeId: string,
): Promise<Map<string, { matches: number; wins: number; draws: number; losses: number }>> {
  const res = await db.query<{
    agent_id: string;
    matches: number;
    wins: number;
    draws: number;
    losses: number;
  }>(
    `SELECT p.agent_id, count(*)::int AS matches,
            count(*) FILTER (WHERE p.outcome = 'win')::int AS wins,
            count(*) FILTER (WHERE p.outcome = 'draw')::int AS draws,
            count(*) FILTER (WHERE p.outcome IN ('loss', 'forfeit'))::int AS losses
       FROM match_participants p JOIN matches m ON m.id = p.match_id
      WHERE m.challenge_id = $1 AND m.status = 'complete' AND m.rated
      GROUP BY p.agent_id`,
    [challengeId],
  );
  return new Map(res.rows.map((r) => [r.agent_id, r]));
}

/** The agents of this challenge's running bouts (their public live events are redacted meanwhile). */
export async function agentsInRunningBouts(db: Queryable, challengeId: string): Promise<Set<string>> {
  const res = await db.query<{ agent_id: string }>(
    `SELECT DISTINCT p.agent_id FROM match_participants p JOIN matches m ON m.id = p.match_id
      WHERE m.challenge_id = $1 AND m.status IN ('scheduled', 'running') AND m.kind = 'bout'`,
    [challengeId],
  );
  return new Set(res.rows.map((r) => r.agent_id));
}

/**
 * Each agent's part in the rated complete matches of a weight class completed after `since` (what
 * pages may still hold back: domain/matches/hold.ts), with the rating before each once applied.
 */
export async function listRecentRatedOutcomes(
  db: Queryable,
  weightClassId: string,
  since: Date,
): Promise<
  {
    match_id: string;
    challenge_id: string;
    agent_id: string;
    outcome: 'win' | 'loss' | 'draw' | 'forfeit' | null;
    completed_at: Date;
    completed_seq: number;
    rating_before: { mu: number; sigma: number; ordinal: number } | null;
  }[]
> {
  const res = await db.query(
    `SELECT p.match_id, m.challenge_id, p.agent_id, p.outcome, m.completed_at,
            m.completed_seq::float8 AS completed_seq, p.rating_before
       FROM match_participants p JOIN matches m ON m.id = p.match_id
      WHERE m.weight_class_id = $1 AND m.status = 'complete' AND m.rated AND m.completed_at > $2
      ORDER BY m.completed_seq, p.seat`,
    [weightClassId, since],
  );
  return res.rows;
}
