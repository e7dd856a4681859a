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

export function insertAgentKey(db: Queryable, agentId: string, keyHash: string, keyPrefix: string, expiresInHours: number): Promise<AgentKeyRow | null> {
  return queryOne<AgentKeyRow>(
    db,
    `INSERT INTO agent_keys (agent_id, key_hash, key_prefix, expires_at)
     VALUES ($1, $2, $3, now() + make_interval(hours => $4)) RETURNING ${COLUMNS}`,
    [agentId, keyHash, keyPrefix, expiresInHours],
  );
}

export async function listAgentKeys(db: Queryable, agentId: string): Promise<AgentKeyRow[]> {
  const res = await db.query<AgentKeyRow>(`SELECT ${COLUMNS} FROM agent_keys WHERE agent_id = $1 ORDER BY created_at DESC, id`, [agentId]);
  return res.rows;
}

export function findAgentKey(db: Queryable, agentId: string, id: string): Promise<AgentKeyRow | null> {
  return queryOne<AgentKeyRow>(db, `SELECT ${COLUMNS} FROM agent_keys WHERE agent_id = $1 AND id = $2`, [agentId, id]);
}

export function revokeAgentKey(db: Queryable, id: string): Promise<AgentKeyRow | null> {
  return queryOne<AgentKeyRow>(db, `UPDATE agent_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING ${COLUMNS}`, [id]);
}
