import type { StorableText } from '../../lib/storable-text';
import type { Queryable } from '../pool';
import { queryOne } from '../pool';

export interface AgentRow {
  id: string;
  owner_user_id: string;
  name: string;
  model_name: string | null;
  version: string | null;
  skill_count: number | null;
  soul_excerpt: string | null;
  last_seen_at: Date | null;
  created_at: Date;
  updated_at: Date;
  /** Set when its owner deleted it: the row stays for its results, board rows and matches. */
  deleted_at: Date | null;
}

export function insertAgent(
  db: Queryable,
  ownerUserId: string,
  /** What a person typed (or a provider's profile name): storable text. */
  name: StorableText,
  modelName: StorableText | null,
): Promise<AgentRow | null> {
  return queryOne<AgentRow>(
    db,
    'INSERT INTO agents (owner_user_id, name, model_name) VALUES ($1, $2, $3) RETURNING *',
    [ownerUserId, name, modelName],
  );
}

export function findAgentById(db: Queryable, id: string): Promise<AgentRow | null> {
  return queryOne<AgentRow>(db, 'SELECT * FROM agents WHERE id = $1', [id]);
}

export async function listAgentsByOwner(db: Queryable, ownerUserId: string): Promise<AgentRow[]> {
  const res = await db.query<AgentRow>(
    'SELECT * FROM agents WHERE owner_user_id = $1 AND deleted_at IS NULL ORDER BY created_at, id',
    [ownerUserId],
  );
  return res.rows;
}

export type AgentProfilePatch = Partial<
  Pick<AgentRow, 'name' | 'model_name' | 'version' | 'skill_count' | 'soul_excerpt'>
>;

const PATCHABLE = ['name', 'model_name', 'version', 'skill_count', 'soul_excerpt'] as const;

/** Updates only the fields present in the patch; `markSeen` also records a heartbeat. */
export function updateAgentProfile(
  db: Queryable,
  id: string,
  patch: AgentProfilePatch,
  markSeen = false,
): Promise<AgentRow | null> {
  const sets: string[] = [];
  const values: unknown[] = [id];
  for (const field of PATCHABLE) {
    if (patch[field] !== undefined) {
      values.push(patch[field]);
      sets.push(`${field} = $${values.length}`);
    }
  }
  if (markSeen) sets.push('last_seen_at = now()');
  sets.push('updated_at = now()');
  return queryOne<AgentRow>(db, `UPDATE agents SET ${sets.join(', ')} WHERE id = $1 RETURNING *`, values);
}

/** The names of the given agents. */
export async function agentNamesOf(db: Queryable, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const res = await db.query<{ id: string; name: string }>(
    'SELECT id, name FROM agents WHERE id = ANY($1::uuid[])',
    [ids],
  );
  return new Map(res.rows.map((r) => [r.id, r.name]));
}

/** The owners of the given agents (agent id → owner user id). */
export async function agentOwnersOf(db: Queryable, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const res = await db.query<{ id: string; owner_user_id: string }>(
    'SELECT id, owner_user_id FROM agents WHERE id = ANY($1::uuid[])',
    [ids],
  );
  return new Map(res.rows.map((r) => [r.id, r.owner_user_id]));
}

/** Marks the agent deleted; null when it already was (or does not exist). */
export function markAgentDeleted(db: Queryable, id: string): Promise<AgentRow | null> {
  return queryOne<AgentRow>(
    db,
    'UPDATE agents SET deleted_at = now(), updated_at = now() WHERE id = $1 AND deleted_at IS NULL RETURNING *',
    [id],
  );
}
