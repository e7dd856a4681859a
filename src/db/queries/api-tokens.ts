import type { Queryable } from '../pool';
import { queryOne } from '../pool';

export interface ApiTokenRow {
  id: string;
  user_id: string;
  agent_id: string;
  name: string;
  token_prefix: string;
  scopes: string[];
  sandbox: boolean;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}

const COLUMNS =
  'id, user_id, agent_id, name, token_prefix, scopes, sandbox, last_used_at, expires_at, revoked_at, created_at';

export interface NewApiToken {
  userId: string;
  agentId: string;
  name: string;
  tokenHash: string;
  tokenPrefix: string;
  scopes: string[];
  sandbox: boolean;
  expiresInDays: number | null;
}

export function insertApiToken(db: Queryable, t: NewApiToken): Promise<ApiTokenRow | null> {
  return queryOne<ApiTokenRow>(
    db,
    `INSERT INTO api_tokens (user_id, agent_id, name, token_hash, token_prefix, scopes, sandbox, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, CASE WHEN $8::int IS NULL THEN NULL ELSE now() + make_interval(days => $8::int) END)
     RETURNING ${COLUMNS}`,
    [t.userId, t.agentId, t.name, t.tokenHash, t.tokenPrefix, t.scopes, t.sandbox, t.expiresInDays],
  );
}

/** Active = not revoked and not expired; this is what the 25-token limit counts. */
export async function countActiveApiTokens(db: Queryable, userId: string): Promise<number> {
  const res = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM api_tokens
      WHERE user_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
    [userId],
  );
  return Number(res.rows[0].n);
}

export async function listUnrevokedApiTokens(db: Queryable, userId: string): Promise<ApiTokenRow[]> {
  const res = await db.query<ApiTokenRow>(
    `SELECT ${COLUMNS} FROM api_tokens WHERE user_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id`,
    [userId],
  );
  return res.rows;
}

export function findApiToken(db: Queryable, id: string): Promise<ApiTokenRow | null> {
  return queryOne<ApiTokenRow>(db, `SELECT ${COLUMNS} FROM api_tokens WHERE id = $1`, [id]);
}

/** Returns the row only when this call revoked it (a second revoke returns null). */
export function revokeApiToken(db: Queryable, id: string): Promise<ApiTokenRow | null> {
  return queryOne<ApiTokenRow>(
    db,
    `UPDATE api_tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING ${COLUMNS}`,
    [id],
  );
}

/**
 * NOTIFY channel of credential changes (migration 1050's triggers on api_tokens, agent_keys and users): the payload is the changed
 * token's or key's hash, or `*` when a user's role changed (every cached credential is dropped).
 */
export const CREDENTIAL_CHANGES_CHANNEL = 'credential_changes';

/** Lookups used by authentication on every request; both hit a UNIQUE index on the hash (named statements: prepared once per connection). */
export interface ApiTokenAuthRow {
  id: string;
  user_id: string;
  agent_id: string;
  scopes: string[];
  sandbox: boolean;
  token_hash: string;
  expires_at: Date | null;
  revoked_at: Date | null;
  role: 'user' | 'admin';
}

export function findApiTokenByHash(db: Queryable, tokenHash: string): Promise<ApiTokenAuthRow | null> {
  return queryOne<ApiTokenAuthRow>(
    db,
    `SELECT t.id, t.user_id, t.agent_id, t.scopes, t.sandbox, t.token_hash, t.expires_at, t.revoked_at, u.role
       FROM api_tokens t JOIN users u ON u.id = t.user_id
      WHERE t.token_hash = $1`,
    [tokenHash],
    'auth_api_token',
  );
}

export async function touchApiToken(db: Queryable, id: string): Promise<void> {
  await db.query(
    `UPDATE api_tokens SET last_used_at = now()
      WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    [id],
  );
}

/** Revokes every live token that acts as the agent (its deletion); returns how many. */
export async function revokeAgentApiTokens(db: Queryable, agentId: string): Promise<number> {
  const res = await db.query(
    'UPDATE api_tokens SET revoked_at = now() WHERE agent_id = $1 AND revoked_at IS NULL',
    [agentId],
  );
  return res.rowCount ?? 0;
}
