import type { Queryable } from '../pool';
import { queryOne } from '../pool';

export interface AgentKeyRow {
  id: string;
  agent_id: string;
  key_prefix: string;
  expires_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
  created_at: Date;
}

const COLUMNS = 'id, agent_id, key_prefix, expires_at, revoked_at, last_used_at, created_at';

export function insertAgentKey(
  db: Queryable,
  agentId: string,
  keyHash: string,
  keyPrefix: string,
  expiresInHours: number,
): Promise<AgentKeyRow | null> {
  return queryOne<AgentKeyRow>(
    db,
    `INSERT INTO agent_keys (agent_id, key_hash, key_prefix, expires_at)
     VALUES ($1, $2, $3, now() + make_interval(hours => $4)) RETURNING ${COLUMNS}`,
    [agentId, keyHash, keyPrefix, expiresInHours],
  );
}

export async function listAgentKeys(db: Queryable, agentId: string): Promise<AgentKeyRow[]> {
  const res = await db.query<AgentKeyRow>(
    `SELECT ${COLUMNS} FROM agent_keys WHERE agent_id = $1 ORDER BY created_at DESC, id`,
    [agentId],
  );
  return res.rows;
}

export function findAgentKey(db: Queryable, agentId: string, id: string): Promise<AgentKeyRow | null> {
  return queryOne<AgentKeyRow>(db, `SELECT ${COLUMNS} FROM agent_keys WHERE agent_id = $1 AND id = $2`, [
    agentId,
    id,
  ]);
}

export function revokeAgentKey(db: Queryable, id: string): Promise<AgentKeyRow | null> {
  return queryOne<AgentKeyRow>(
    db,
    `UPDATE agent_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING ${COLUMNS}`,
    [id],
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
export async function touchAgentKey(db: Queryable, id: string): Promise<void> {
  await db.query(
    `UPDATE agent_keys SET last_used_at = now()
      WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    [id],
  );
}

/** Revokes every live connector key of the agent (its deletion); returns how many. */
export async function revokeAllAgentKeys(db: Queryable, agentId: string): Promise<number> {
  const res = await db.query(
    'UPDATE agent_keys SET revoked_at = now() WHERE agent_id = $1 AND revoked_at IS NULL',
    [agentId],
  );
  return res.rowCount ?? 0;
}
