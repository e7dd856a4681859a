import type { Queryable } from '../pool';

/**
 * The status and leaderboard version (migration 2520: changes with anything a leaderboard page
 * shows) of each known challenge among `challengeIds`, in one statement prepared once per
 * connection; unknown ones are absent from the map.
 */
export async function findLeaderboardVersions(
  db: Queryable,
  challengeIds: string[],
): Promise<Map<string, { status: string; version: string }>> {
  const res = await db.query<{ id: string; status: string; version: string }>({
    name: 'leaderboard_versions',
    text: `SELECT c.id, c.status, COALESCE(v.version, 0)::text AS version
             FROM challenges c LEFT JOIN leaderboard_versions v ON v.challenge_id = c.id
            WHERE c.id = ANY($1::uuid[])`,
    values: [challengeIds],
  });
  return new Map(res.rows.map((r) => [r.id, { status: r.status, version: r.version }]));
}
