import type { Queryable } from '../pool';
import { queryOne } from '../pool';

/**
 * The challenge's status and leaderboard version (migration 2520: changes with anything a
 * leaderboard page shows), or null for an unknown challenge. One primary-key lookup per table,
 * prepared once per connection.
 */
export function findLeaderboardVersion(
  db: Queryable,
  challengeId: string,
): Promise<{ status: string; version: string } | null> {
  return queryOne<{ status: string; version: string }>(
    db,
    `SELECT c.status, COALESCE(v.version, 0)::text AS version
       FROM challenges c LEFT JOIN leaderboard_versions v ON v.challenge_id = c.id
      WHERE c.id = $1`,
    [challengeId],
    'leaderboard_version',
  );
}
