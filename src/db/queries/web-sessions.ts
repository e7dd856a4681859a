import type { Queryable } from '../pool';
import { queryOne } from '../pool';

export interface WebSessionRow {
  id: string;
  user_id: string;
  role: 'user' | 'admin';
  created_at: Date;
  last_seen_at: Date;
  absolute_expires_at: Date;
  revoked_at: Date | null;
}

/** A session with the person it belongs to. */
export interface WebSessionWithUser extends WebSessionRow {
  subject: string;
  name: string | null;
  /** The database's clock, so expiry is judged on one clock whatever the API hosts' say. */
  now: Date;
}

const COLUMNS = 's.id, s.user_id, s.role, s.created_at, s.last_seen_at, s.absolute_expires_at, s.revoked_at';

export function insertWebSession(
  db: Queryable,
  s: {
    secretHash: string;
    userId: string;
    role: 'user' | 'admin';
    absoluteHours: number;
    /** The provider's ID token (the id_token_hint of its logout), when there is one. */
    idToken?: string | null;
  },
): Promise<WebSessionRow | null> {
  return queryOne<WebSessionRow>(
    db,
    `INSERT INTO web_sessions AS s (secret_hash, user_id, role, absolute_expires_at, id_token)
     VALUES ($1, $2, $3, now() + make_interval(hours => $4::int), $5)
     RETURNING ${COLUMNS}`,
    [s.secretHash, s.userId, s.role, s.absoluteHours, s.idToken ?? null],
  );
}

export function findWebSessionByHash(db: Queryable, secretHash: string): Promise<WebSessionWithUser | null> {
  return queryOne<WebSessionWithUser>(
    db,
    `SELECT ${COLUMNS}, u.subject, u.name, now() AS now
       FROM web_sessions s JOIN users u ON u.id = s.user_id
      WHERE s.secret_hash = $1`,
    [secretHash],
  );
}

/** Records activity (the idle clock restarts); at most once a minute per session. */
export async function touchWebSession(db: Queryable, id: string): Promise<void> {
  await db.query(
    `UPDATE web_sessions SET last_seen_at = now()
      WHERE id = $1 AND revoked_at IS NULL AND last_seen_at < now() - interval '1 minute'`,
    [id],
  );
}

/** Ends the session; answers it with the provider's ID token it kept (for the provider's logout). */
export function revokeWebSession(
  db: Queryable,
  id: string,
): Promise<(WebSessionRow & { id_token: string | null }) | null> {
  return queryOne<WebSessionRow & { id_token: string | null }>(
    db,
    `UPDATE web_sessions s SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING ${COLUMNS}, s.id_token`,
    [id],
  );
}

/** Sign out everywhere: every live session of the user. Returns how many ended. */
export async function revokeWebSessionsOfUser(db: Queryable, userId: string): Promise<number> {
  const res = await db.query(
    'UPDATE web_sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL',
    [userId],
  );
  return res.rowCount ?? 0;
}

export async function countLiveWebSessionsOfUser(db: Queryable, userId: string): Promise<number> {
  const row = await queryOne<{ n: number }>(
    db,
    `SELECT count(*)::int AS n FROM web_sessions
      WHERE user_id = $1 AND revoked_at IS NULL AND absolute_expires_at > now()`,
    [userId],
  );
  return row?.n ?? 0;
}

/**
 * Deletes sessions ended for good: `keepDays` past their absolute expiry (which every session
 * reaches, revoked or idle ones included), at most `limit` a call. Returns how many went.
 */
export async function deleteWebSessionsExpiredBefore(
  db: Queryable,
  keepDays: number,
  limit: number,
): Promise<number> {
  const res = await db.query(
    `DELETE FROM web_sessions WHERE id IN (
       SELECT id FROM web_sessions
        WHERE absolute_expires_at < now() - make_interval(days => $1)
        LIMIT $2)`,
    [keepDays, limit],
  );
  return res.rowCount ?? 0;
}
