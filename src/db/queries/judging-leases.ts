import type { Queryable } from '../pool';

/** Outcome of one admission attempt; counts are the leases held when it was decided. */
export type LeaseAdmission =
  { admitted: true } | { admitted: false; userInFlight: number; agentInFlight: number };

/**
 * Takes (or refreshes) the lease of a submission run when its agent and owner are under their
 * caps. Serialised per owner with a transaction-level advisory lock, so two workers admitting the
 * same owner's runs at once cannot both pass the cap. Must run inside a transaction.
 */
export async function acquireJudgingLease(
  tx: Queryable,
  lease: { submissionId: string; run: number; agentId: string; userId: string },
  caps: { perUser: number; perAgent: number; ttlSeconds: number },
): Promise<LeaseAdmission> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('judging-lease:' || $1::text, 0))`, [
    lease.userId,
  ]);
  const held = await tx.query(
    `UPDATE judging_leases SET run = $2, expires_at = now() + make_interval(secs => $3)
      WHERE submission_id = $1 AND expires_at > now()`,
    [lease.submissionId, lease.run, caps.ttlSeconds],
  );
  if (held.rowCount === 1) return { admitted: true };
  const counts = await tx.query<{ user_in_flight: number; agent_in_flight: number }>(
    `SELECT count(*)::int AS user_in_flight,
            count(*) FILTER (WHERE agent_id = $2)::int AS agent_in_flight
       FROM judging_leases
      WHERE user_id = $1 AND expires_at > now() AND submission_id <> $3`,
    [lease.userId, lease.agentId, lease.submissionId],
  );
  const { user_in_flight: userInFlight, agent_in_flight: agentInFlight } = counts.rows[0];
  if (userInFlight >= caps.perUser || agentInFlight >= caps.perAgent) {
    return { admitted: false, userInFlight, agentInFlight };
  }
  await tx.query(
    `INSERT INTO judging_leases (submission_id, run, agent_id, user_id, expires_at)
     VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))
     ON CONFLICT (submission_id) DO UPDATE
       SET run = EXCLUDED.run, agent_id = EXCLUDED.agent_id, user_id = EXCLUDED.user_id,
           acquired_at = now(), expires_at = EXCLUDED.expires_at`,
    [lease.submissionId, lease.run, lease.agentId, lease.userId, caps.ttlSeconds],
  );
  return { admitted: true };
}

/** Keeps a running judging's lease alive (called with its heartbeats). */
export async function refreshJudgingLease(
  db: Queryable,
  submissionId: string,
  ttlSeconds: number,
): Promise<void> {
  await db.query(
    `UPDATE judging_leases SET expires_at = now() + make_interval(secs => $2) WHERE submission_id = $1`,
    [submissionId, ttlSeconds],
  );
}

/** Ends a run's lease: its result or failure is recorded (same transaction), or it went stale. */
export async function releaseJudgingLease(db: Queryable, submissionId: string, run: number): Promise<void> {
  await db.query(`DELETE FROM judging_leases WHERE submission_id = $1 AND run <= $2`, [submissionId, run]);
}
