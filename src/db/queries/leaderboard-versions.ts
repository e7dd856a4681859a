import type { Queryable } from '../pool';

/**
 * The status and leaderboard version (migration 2520: changes with anything a leaderboard page
 * shows) of each known challenge among `challengeIds`, in one statement prepared once per
 * connection; unknown ones are absent from the map.
 */
export async function findLeaderboardVersions(
  db: Queryable,
  challengeIds: string[],
): Promise<Map<string, { status: string; version: string; ends_at: Date | null; freeze_minutes: number }>> {
  const res = await db.query<{
    id: string;
    status: string;
    version: string;
    ends_at: Date | null;
    freeze_minutes: number;
  }>({
    name: 'leaderboard_versions_v2',
    text: `SELECT c.id, c.status, COALESCE(v.version, 0)::text AS version, c.ends_at, c.freeze_minutes
             FROM challenges c LEFT JOIN leaderboard_versions v ON v.challenge_id = c.id
            WHERE c.id = ANY($1::uuid[])`,
    values: [challengeIds],
  });
  return new Map(
    res.rows.map((r) => [
      r.id,
      { status: r.status, version: r.version, ends_at: r.ends_at, freeze_minutes: r.freeze_minutes },
    ]),
  );
}

/** Moves a challenge's leaderboard version (a final selection changed the final board; a match challenge got a new entrant). */
export async function bumpLeaderboardVersion(db: Queryable, challengeId: string): Promise<void> {
  await db.query(
    `INSERT INTO leaderboard_versions AS v (challenge_id) VALUES ($1)
     ON CONFLICT (challenge_id) DO UPDATE SET version = v.version + 1`,
    [challengeId],
  );
}

/** Match challenges' boards of a weight class change with its ratings (challenge order: no deadlocks). */
export async function bumpMatchBoardsOfClass(db: Queryable, weightClassId: string): Promise<void> {
  await db.query(
    `INSERT INTO leaderboard_versions AS v (challenge_id)
       SELECT id FROM challenges WHERE weight_class_id = $1 AND format IN ('head_to_head', 'game') ORDER BY id
     ON CONFLICT (challenge_id) DO UPDATE SET version = v.version + 1`,
    [weightClassId],
  );
}
