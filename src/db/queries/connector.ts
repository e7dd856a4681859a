import type { Queryable } from '../pool';
import { queryOne } from '../pool';

/** Entry statuses (DESIGN.md): assigned → active → submitted → judged, or timed_out / withdrawn. */

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

export interface SpectatorChallengeRow {
  id: string;
  title: string;
  description: string;
  status: string;
  starts_at: Date | null;
  ends_at: Date | null;
}

/** A challenge as the spectator views need it (status decides visibility). */
export function findChallengeForSpectators(db: Queryable, challengeId: string): Promise<SpectatorChallengeRow | null> {
  return queryOne<SpectatorChallengeRow>(
    db,
    'SELECT id, title, description, status, starts_at, ends_at FROM challenges WHERE id = $1',
    [challengeId],
  );
}
