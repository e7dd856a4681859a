import type { Queryable } from '../pool';

/** Just what leaderboard reads need to know about the challenge (no entry count: hot path). */
export async function findChallengeStatus(
  db: Queryable,
  id: string,
): Promise<{ id: string; status: string; ends_at: Date | null; freeze_minutes: number } | null> {
  const res = await db.query<{ id: string; status: string; ends_at: Date | null; freeze_minutes: number }>({
    name: 'lb_challenge_v2',
    text: 'SELECT id, status, ends_at, freeze_minutes FROM challenges WHERE id = $1',
    values: [id],
  });
  return res.rows[0] ?? null;
}

/**
 * Recomputes one (challenge, agent) leaderboard row from the agent's current scored results.
 * Call inside the transaction that stores or supersedes a result, with the entry row locked.
 * Sandbox results never count; an agent without a scored result has no row.
 */
export async function refreshLeaderboardEntry(
  db: Queryable,
  challengeId: string,
  agentId: string,
): Promise<void> {
  const upserted = await db.query(
    `WITH best AS (
       SELECT id AS result_id, submission_id, final_score, submitted_at FROM results
       WHERE challenge_id = $1 AND agent_id = $2 AND superseded_at IS NULL AND result_state = 'scored' AND sandbox = false
       ORDER BY final_score DESC, submitted_at, id LIMIT 1
     ), stats AS (
       SELECT count(*)::int AS n, max(submitted_at) AS last FROM submissions
       WHERE agent_id = $2 AND challenge_id = $1 AND sandbox = false
     )
     INSERT INTO leaderboard_entries (challenge_id, agent_id, best_score, best_submission_id, best_result_id, best_reached_at,
                                      submission_count, last_submitted_at, updated_at)
     SELECT $1, $2, best.final_score, best.submission_id, best.result_id, date_trunc('milliseconds', best.submitted_at),
            stats.n, stats.last, now()
     FROM best, stats
     ON CONFLICT (challenge_id, agent_id) DO UPDATE SET
       best_score = EXCLUDED.best_score, best_submission_id = EXCLUDED.best_submission_id,
       best_result_id = EXCLUDED.best_result_id, best_reached_at = EXCLUDED.best_reached_at,
       submission_count = EXCLUDED.submission_count, last_submitted_at = EXCLUDED.last_submitted_at, updated_at = now()`,
    [challengeId, agentId],
  );
  if (upserted.rowCount === 0) {
    await db.query('DELETE FROM leaderboard_entries WHERE challenge_id = $1 AND agent_id = $2', [
      challengeId,
      agentId,
    ]);
  }
}

/** Position of a row in the leaderboard's total order; also the content of the opaque cursor. */
export interface LeaderboardSortKey {
  /** numeric(5,2) as text, exact. */
  score: string;
  /** best_reached_at (millisecond precision in the table, so a JS Date round-trips it). */
  reachedAt: Date;
  agentId: string;
}

export interface LeaderboardRow {
  agent_id: string;
  agent_name: string;
  best_score: string;
  best_submission_id: string;
  submission_count: number;
  last_submitted_at: Date;
  best_reached_at: Date;
}

const PAGE_COLUMNS = `l.agent_id, a.name AS agent_name, l.best_score::text AS best_score, l.best_submission_id,
  l.submission_count, l.last_submitted_at, l.best_reached_at`;
const ORDER = 'ORDER BY l.best_score DESC, l.best_reached_at, l.agent_id';
// `best_score <= $2` bounds the index scan; the OR finishes the strict "after the cursor" test.
const AFTER_CURSOR = `AND l.best_score <= $2::numeric AND (l.best_score < $2::numeric OR (l.best_reached_at, l.agent_id) > ($3::timestamptz, $4::uuid))`;

/**
 * One keyset page (walks leaderboard_rank_idx). With `withCounts`, every row also carries the
 * challenge's total, the number of rows ranked at or above the cursor (computed once) and the
 * challenge's status (null: no such challenge), so the hot read is one statement, one round trip.
 */
export async function leaderboardPage(
  db: Queryable,
  challengeId: string,
  after: LeaderboardSortKey | null,
  limit: number,
  withCounts: boolean,
): Promise<{
  rows: LeaderboardRow[];
  total: number | null;
  before: number;
  challengeStatus?: string | null;
}> {
  const params: unknown[] = [challengeId];
  let where = 'l.challenge_id = $1';
  let atOrAbove = 'false';
  if (after) {
    params.push(after.score, after.reachedAt, after.agentId);
    where += ` ${AFTER_CURSOR}`;
    atOrAbove =
      'b.best_score > $2::numeric OR (b.best_score = $2::numeric AND (b.best_reached_at, b.agent_id) <= ($3::timestamptz, $4::uuid))';
  }
  params.push(limit);
  const limitParam = `$${params.length}`;
  // Four fixed statement texts (cursor or not × counts or not), prepared once per connection: the
  // hot read path skips planning.
  const name = `lb_page_${after ? 'after' : 'first'}_${withCounts ? 'counted' : 'plain'}`;
  const pageSql = `SELECT ${PAGE_COLUMNS} FROM leaderboard_entries l JOIN agents a ON a.id = l.agent_id WHERE ${where} ${ORDER} LIMIT ${limitParam}`;
  if (!withCounts) {
    const res = await db.query<LeaderboardRow>({ name, text: pageSql, values: params });
    return { rows: res.rows, total: null, before: 0 };
  }
  // The total and the rank offset come from one pass over the challenge's rows; the LEFT JOIN keeps
  // the counts when the page is empty.
  const res = await db.query<
    (LeaderboardRow | { [K in keyof LeaderboardRow]: null }) & {
      total: number;
      before: number;
      challenge_status: string | null;
    }
  >({
    name: `${name}_status`,
    text: `WITH page AS (${pageSql}),
     counts AS (
       SELECT count(*)::int AS total, count(*) FILTER (WHERE ${atOrAbove})::int AS before,
              (SELECT status FROM challenges WHERE id = $1) AS challenge_status
       FROM leaderboard_entries b WHERE b.challenge_id = $1
     )
     SELECT page.*, counts.total, counts.before, counts.challenge_status FROM counts LEFT JOIN page ON true
     ORDER BY page.best_score::numeric DESC, page.best_reached_at, page.agent_id`,
    values: params,
  });
  const first = res.rows[0];
  const rows = res.rows.filter(
    (r): r is LeaderboardRow & { total: number; before: number; challenge_status: string | null } =>
      r.agent_id !== null,
  );
  return {
    rows,
    total: first?.total ?? 0,
    before: first?.before ?? 0,
    challengeStatus: first?.challenge_status ?? null,
  };
}
