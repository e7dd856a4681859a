import type { Queryable } from '../pool';

/** A pending rated match's participant (one row per participant, in completion order then seat). */
export interface PendingRatedParticipantRow {
  match_id: string;
  completed_seq: string;
  completed_at: Date | null;
  agent_id: string;
  seat: number;
  rank: number | null;
  outcome: 'win' | 'loss' | 'draw' | 'forfeit' | null;
}

/**
 * The participants of a class's complete rated matches without a `rating_updates` row, in
 * completion order (`completed_seq`) then seat: everything the single writer applies, in one read.
 */
export async function listPendingRatedParticipants(
  tx: Queryable,
  weightClassId: string,
): Promise<PendingRatedParticipantRow[]> {
  const res = await tx.query<PendingRatedParticipantRow>(
    `SELECT m.id AS match_id, m.completed_seq, m.completed_at, p.agent_id, p.seat, p.rank, p.outcome
       FROM matches m JOIN match_participants p ON p.match_id = m.id
      WHERE m.weight_class_id = $1 AND m.status = 'complete' AND m.rated AND m.completed_seq IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM rating_updates u WHERE u.match_id = m.id)
      ORDER BY m.completed_seq, p.seat`,
    [weightClassId],
  );
  return res.rows;
}

/**
 * Records that these matches' rating updates were applied (the idempotency key); returns the ids
 * that were not recorded before.
 */
export async function insertRatingUpdates(
  tx: Queryable,
  weightClassId: string,
  updates: { matchId: string; completedSeq: string }[],
): Promise<Set<string>> {
  if (updates.length === 0) return new Set();
  const res = await tx.query<{ match_id: string }>(
    `INSERT INTO rating_updates (match_id, weight_class_id, completed_seq)
     SELECT t.match_id, $1, t.completed_seq FROM unnest($2::uuid[], $3::bigint[]) AS t(match_id, completed_seq)
     ON CONFLICT (match_id) DO NOTHING RETURNING match_id`,
    [weightClassId, updates.map((u) => u.matchId), updates.map((u) => u.completedSeq)],
  );
  return new Set(res.rows.map((r) => r.match_id));
}

/** The applied updates of a class in the order they were applied (tests and audits). */
export async function listRatingUpdates(
  db: Queryable,
  weightClassId: string,
): Promise<{ match_id: string; completed_seq: string; applied_at: Date }[]> {
  const res = await db.query<{ match_id: string; completed_seq: string; applied_at: Date }>(
    'SELECT match_id, completed_seq, applied_at FROM rating_updates WHERE weight_class_id = $1 ORDER BY applied_at, completed_seq',
    [weightClassId],
  );
  return res.rows;
}
