import type { Queryable } from '../pool';
import { queryOne } from '../pool';

/**
 * NOTIFY channel of credential changes (migration 1050's triggers): the payload is the changed
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

export interface AgentKeyAuthRow {
  id: string;
  agent_id: string;
  owner_user_id: string;
  key_hash: string;
  expires_at: Date;
  revoked_at: Date | null;
}

export function findAgentKeyByHash(db: Queryable, keyHash: string): Promise<AgentKeyAuthRow | null> {
  return queryOne<AgentKeyAuthRow>(
    db,
    `SELECT k.id, k.agent_id, a.owner_user_id, k.key_hash, k.expires_at, k.revoked_at
       FROM agent_keys k JOIN agents a ON a.id = k.agent_id
      WHERE k.key_hash = $1`,
    [keyHash],
    'auth_agent_key',
  );
}

/** last_used_at is written at most once a minute per credential, to keep reads off the write path. */
export async function touchApiToken(db: Queryable, id: string): Promise<void> {
  await db.query(
    `UPDATE api_tokens SET last_used_at = now()
      WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    [id],
  );
}

export async function touchAgentKey(db: Queryable, id: string): Promise<void> {
  await db.query(
    `UPDATE agent_keys SET last_used_at = now()
      WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    [id],
  );
}
