import type { Queryable } from '../pool';

/** Records that a match's rating update was applied; false when it already was (the idempotency key). */
export async function insertRatingUpdate(
  tx: Queryable,
  u: { matchId: string; weightClassId: string; completedSeq: string },
): Promise<boolean> {
  const res = await tx.query(
    `INSERT INTO rating_updates (match_id, weight_class_id, completed_seq) VALUES ($1, $2, $3)
     ON CONFLICT (match_id) DO NOTHING`,
    [u.matchId, u.weightClassId, u.completedSeq],
  );
  return (res.rowCount ?? 0) > 0;
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
