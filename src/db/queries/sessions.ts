import type { Queryable } from '../pool';
import { queryOne } from '../pool';

export interface SessionRow {
  id: string;
  challenge_id: string;
  agent_id: string;
  entry_id: string;
  status: 'open' | 'closed';
  sandbox: boolean;
  expires_at: Date | null;
  version_snapshot: Record<string, unknown> | null;
  close_reason: string | null;
  closed_at: Date | null;
  created_at: Date;
  /** The agent's owner (joined), for ownership checks and event routing. */
  owner_user_id: string;
}

const SESSION_SELECT = `SELECT s.*, a.owner_user_id FROM sessions s JOIN agents a ON a.id = s.agent_id`;

export function findSessionById(db: Queryable, id: string, forUpdate = false): Promise<SessionRow | null> {
  return queryOne<SessionRow>(db, `${SESSION_SELECT} WHERE s.id = $1${forUpdate ? ' FOR UPDATE OF s' : ''}`, [
    id,
  ]);
}

export function findOpenSession(
  db: Queryable,
  challengeId: string,
  agentId: string,
): Promise<SessionRow | null> {
  return queryOne<SessionRow>(
    db,
    `${SESSION_SELECT} WHERE s.challenge_id = $1 AND s.agent_id = $2 AND s.status = 'open'`,
    [challengeId, agentId],
  );
}

export interface NewSession {
  challengeId: string;
  agentId: string;
  entryId: string;
  sandbox: boolean;
  /** expires_at = opened + time limit, capped by ends_at; null when neither (computed on the database clock). */
  timeLimitMinutes: number | null;
  endsAt: Date | null;
  versionSnapshot: Record<string, unknown>;
}

/** Throws a 23505 unique violation (sessions_one_open_idx) when an open session already exists. */
export async function insertSession(
  db: Queryable,
  s: NewSession,
): Promise<Omit<SessionRow, 'owner_user_id'>> {
  // LEAST ignores NULLs: no time limit → ends_at; no ends_at → the time limit; neither → NULL.
  const row = await queryOne<Omit<SessionRow, 'owner_user_id'>>(
    db,
    `INSERT INTO sessions (challenge_id, agent_id, entry_id, sandbox, expires_at, version_snapshot)
     VALUES ($1, $2, $3, $4, LEAST(now() + make_interval(mins => $5::int), $6::timestamptz), $7) RETURNING *`,
    [
      s.challengeId,
      s.agentId,
      s.entryId,
      s.sandbox,
      s.timeLimitMinutes,
      s.endsAt,
      JSON.stringify(s.versionSnapshot),
    ],
  );
  return row!;
}

export type CloseReason = 'expired' | 'challenge_inactive' | 'closed_by_caller' | 'match_ended';

/** Closes an open session; null when it was already closed. */
export function closeSession(
  db: Queryable,
  id: string,
  reason: CloseReason,
): Promise<Omit<SessionRow, 'owner_user_id'> | null> {
  return queryOne(
    db,
    `UPDATE sessions SET status = 'closed', close_reason = $2, closed_at = now() WHERE id = $1 AND status = 'open' RETURNING *`,
    [id, reason],
  );
}

/** Sweeper: closes open sessions past their expiry, in batches. Returns how many were closed. */
export async function closeExpiredSessions(db: Queryable, limit = 500): Promise<number> {
  const res = await db.query(
    `UPDATE sessions SET status = 'closed', close_reason = 'expired', closed_at = now()
     WHERE id IN (SELECT id FROM sessions WHERE status = 'open' AND expires_at <= now() ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)`,
    [limit],
  );
  return res.rowCount ?? 0;
}

/** Sweeper: closes open sessions whose challenge is no longer active (completed, quarantined, retired). */
export async function closeSessionsOfInactiveChallenges(db: Queryable, limit = 500): Promise<number> {
  const res = await db.query(
    `UPDATE sessions SET status = 'closed', close_reason = 'challenge_inactive', closed_at = now()
     WHERE id IN (
       SELECT s.id FROM sessions s JOIN challenges c ON c.id = s.challenge_id
       WHERE s.status = 'open' AND (c.status <> 'active' OR c.ends_at <= now())
       LIMIT $1 FOR UPDATE OF s SKIP LOCKED)`,
    [limit],
  );
  return res.rowCount ?? 0;
}

/** Closes the open sessions of a match's bout entries (its end); returns how many closed. */
export async function closeBoutSessions(db: Queryable, matchId: string): Promise<number> {
  const res = await db.query(
    `UPDATE sessions SET status = 'closed', close_reason = 'match_ended', closed_at = now()
      WHERE status = 'open' AND entry_id IN (SELECT e.id FROM entries e WHERE e.match_id = $1)`,
    [matchId],
  );
  return res.rowCount ?? 0;
}
