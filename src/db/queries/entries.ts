import type { Queryable } from '../pool';
import { queryOne } from '../pool';

export const ENTRY_STATUSES = [
  'assigned',
  'active',
  'submitted',
  'judged',
  'timed_out',
  'withdrawn',
] as const;
export type EntryStatus = (typeof ENTRY_STATUSES)[number];

export interface EntryRow {
  id: string;
  challenge_id: string;
  agent_id: string;
  status: EntryStatus;
  sandbox: boolean;
  assigned_at: Date;
  updated_at: Date;
}

/**
 * Creates the (challenge, agent) entry if missing, else returns the existing one; safe under
 * concurrency (the UNIQUE constraint decides). A live (non-sandbox) caller turns an existing
 * sandbox entry into a live one, so that real participation is counted in entry_count; the
 * reverse never happens. New entries start as `assigned`. Call it inside your transaction
 * (opening a session creates the entry if missing).
 */
export async function upsertEntry(
  tx: Queryable,
  input: { challengeId: string; agentId: string; sandbox: boolean },
): Promise<{ entry: EntryRow; created: boolean }> {
  const written = await queryOne<EntryRow & { created: boolean }>(
    tx,
    `INSERT INTO entries (challenge_id, agent_id, sandbox) VALUES ($1, $2, $3)
     ON CONFLICT (challenge_id, agent_id) DO UPDATE SET sandbox = false, updated_at = now()
       WHERE entries.sandbox AND NOT EXCLUDED.sandbox
     RETURNING *, (xmax = 0) AS created`,
    [input.challengeId, input.agentId, input.sandbox],
  );
  if (written) {
    const { created, ...entry } = written;
    return { entry, created };
  }
  const existing = await findEntry(tx, input.challengeId, input.agentId);
  if (!existing) throw new Error('entry vanished during upsert');
  return { entry: existing, created: false };
}

export function findEntry(db: Queryable, challengeId: string, agentId: string): Promise<EntryRow | null> {
  return queryOne<EntryRow>(db, 'SELECT * FROM entries WHERE challenge_id = $1 AND agent_id = $2', [
    challengeId,
    agentId,
  ]);
}

export function findEntryById(db: Queryable, id: string): Promise<EntryRow | null> {
  return queryOne<EntryRow>(db, 'SELECT * FROM entries WHERE id = $1', [id]);
}

/** A challenge's entries in assignment order; `ownerUserId` narrows to that user's agents. */
export async function listEntries(
  db: Queryable,
  filter: { challengeId: string; ownerUserId?: string | null },
  page: { limit: number; offset: number },
): Promise<{ rows: EntryRow[]; total: number }> {
  const values: unknown[] = [filter.challengeId];
  let where = 'WHERE e.challenge_id = $1';
  if (filter.ownerUserId) {
    values.push(filter.ownerUserId);
    where += ` AND e.agent_id IN (SELECT a.id FROM agents a WHERE a.owner_user_id = $${values.length})`;
  }
  const n = values.length;
  const [rows, count] = await Promise.all([
    db.query<EntryRow>(
      `SELECT e.* FROM entries e ${where} ORDER BY e.assigned_at, e.id LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...values, page.limit, page.offset],
    ),
    db.query<{ total: number }>(`SELECT count(*)::int AS total FROM entries e ${where}`, values),
  ]);
  return { rows: rows.rows, total: count.rows[0].total };
}

/** Locks the (challenge, agent) entry: serialises quota checks and leaderboard refreshes of that pair. */
export function lockEntry(db: Queryable, challengeId: string, agentId: string): Promise<EntryRow | null> {
  return queryOne<EntryRow>(
    db,
    'SELECT * FROM entries WHERE challenge_id = $1 AND agent_id = $2 FOR UPDATE',
    [challengeId, agentId],
  );
}

/** A session opened by the API is active participation: a freshly created entry skips `assigned`. */
export async function markEntryActive(db: Queryable, entryId: string): Promise<void> {
  await db.query(
    "UPDATE entries SET status = 'active', updated_at = now() WHERE id = $1 AND status = 'assigned'",
    [entryId],
  );
}

/** Entry status only moves forward: assigned → active → submitted → judged. */
export async function advanceEntryStatus(
  db: Queryable,
  challengeId: string,
  agentId: string,
  to: 'submitted' | 'judged',
): Promise<void> {
  const from = to === 'submitted' ? ['assigned', 'active'] : ['assigned', 'active', 'submitted'];
  await db.query(
    'UPDATE entries SET status = $3, updated_at = now() WHERE challenge_id = $1 AND agent_id = $2 AND status = ANY($4::text[])',
    [challengeId, agentId, to, from],
  );
}

export interface AssignmentRow {
  entry_id: string;
  assigned_at: Date;
  challenge_id: string;
  title: string;
  description: string;
  category: string;
  format: string;
  time_limit_minutes: number | null;
  starts_at: Date | null;
  ends_at: Date | null;
}

/** The agent's entries still waiting to be picked up (status assigned) in active challenges. */
export async function listAssignedEntries(db: Queryable, agentId: string): Promise<AssignmentRow[]> {
  const res = await db.query<AssignmentRow>(
    `SELECT e.id AS entry_id, e.assigned_at, c.id AS challenge_id, c.title, c.description, c.category, c.format,
            c.time_limit_minutes, c.starts_at, c.ends_at
       FROM entries e JOIN challenges c ON c.id = e.challenge_id
      WHERE e.agent_id = $1 AND e.status = 'assigned' AND c.status = 'active'
      ORDER BY e.assigned_at, e.id
      LIMIT 100`,
    [agentId],
  );
  return res.rows;
}

/** The agents entered in a challenge (id and name), by name: the console's agent filter. */
export async function listEntrantAgents(
  db: Queryable,
  challengeId: string,
  limit: number,
): Promise<{ id: string; name: string }[]> {
  const res = await db.query<{ id: string; name: string }>(
    `SELECT a.id, a.name FROM entries e JOIN agents a ON a.id = e.agent_id
     WHERE e.challenge_id = $1 ORDER BY a.name, a.id LIMIT $2`,
    [challengeId, limit],
  );
  return res.rows;
}
