/** Bulk rejudges of a challenge and their items (migration 5251). */
import type { Queryable } from '../pool';
import { queryOne } from '../pool';

export interface RejudgeRow {
  id: string;
  challenge_id: string;
  requested_by: string;
  statuses: string[];
  status: 'running' | 'done';
  item_count: number;
  created_at: Date;
  finished_at: Date | null;
}

export interface RejudgeItemRow {
  submission_id: string;
  agent_id: string;
  agent_name: string;
  run: number;
  old_score: number | null;
  /** The score of the result of this rejudge's run; null until judged, or when it failed. */
  new_score: number | null;
  /** The private (held-out) scores before and after (operators only); null without private tests. */
  old_private_score: number | null;
  new_private_score: number | null;
  /** The run is judged (complete or failed), or a later run superseded it. */
  done: boolean;
}

/** One rejudged submission, as the request starts its run. */
export interface StartedRejudgeItem {
  submission_id: string;
  challenge_id: string;
  agent_id: string;
  judge_run: number;
  sandbox: boolean;
  owner_user_id: string;
  old_score: number | null;
}

const REJUDGE_COLUMNS =
  'id, challenge_id, requested_by, statuses, status, item_count, created_at, finished_at';

export function findRejudge(db: Queryable, id: string): Promise<RejudgeRow | null> {
  return queryOne<RejudgeRow>(db, `SELECT ${REJUDGE_COLUMNS} FROM rejudges WHERE id = $1`, [id]);
}

/** The running rejudge of a challenge, row-locked (at most one: rejudges_running_idx). */
export function lockRunningRejudge(db: Queryable, challengeId: string): Promise<RejudgeRow | null> {
  return queryOne<RejudgeRow>(
    db,
    `SELECT ${REJUDGE_COLUMNS} FROM rejudges WHERE challenge_id = $1 AND status = 'running' FOR UPDATE`,
    [challengeId],
  );
}

/** The id of the challenge's rejudge marked running, if any (it may be finished: see finishRejudgeIfDone). */
export async function findRunningRejudgeId(db: Queryable, challengeId: string): Promise<string | null> {
  const row = await queryOne<{ id: string }>(
    db,
    "SELECT id FROM rejudges WHERE challenge_id = $1 AND status = 'running'",
    [challengeId],
  );
  return row?.id ?? null;
}

export function insertRejudge(
  db: Queryable,
  r: { challengeId: string; requestedBy: string; statuses: string[] },
): Promise<RejudgeRow | null> {
  return queryOne<RejudgeRow>(
    db,
    `INSERT INTO rejudges (challenge_id, requested_by, statuses, item_count) VALUES ($1, $2, $3, 0)
     RETURNING ${REJUDGE_COLUMNS}`,
    [r.challengeId, r.requestedBy, r.statuses],
  );
}

/**
 * Starts a new judge run of every submission of the challenge in one of `statuses` (as a single
 * rejudge does: run + 1, status queued) and records each as an item with its current score.
 * Answers the items, oldest submission first.
 */
export async function startRejudgeItems(
  db: Queryable,
  rejudgeId: string,
  challengeId: string,
  statuses: string[],
): Promise<StartedRejudgeItem[]> {
  const res = await db.query<StartedRejudgeItem & { old_score: string | null }>(
    `WITH picked AS (
       SELECT s.id, r.final_score AS old_score
       FROM submissions s
       LEFT JOIN results r ON r.submission_id = s.id AND r.superseded_at IS NULL
       WHERE s.challenge_id = $2 AND s.status = ANY($3::text[])
       FOR UPDATE OF s
     ), started AS (
       UPDATE submissions s SET judge_run = s.judge_run + 1, status = 'queued', failure_reason = NULL,
         workflow_started_at = NULL, updated_at = now()
       FROM picked WHERE s.id = picked.id
       RETURNING s.id, s.challenge_id, s.agent_id, s.judge_run, s.sandbox, s.submitted_at, picked.old_score
     ), items AS (
       INSERT INTO rejudge_items (rejudge_id, submission_id, run, old_score)
       SELECT $1, started.id, started.judge_run, started.old_score FROM started
     )
     SELECT started.id AS submission_id, started.challenge_id, started.agent_id, started.judge_run,
       started.sandbox, a.owner_user_id, started.old_score
     FROM started JOIN agents a ON a.id = started.agent_id
     ORDER BY started.submitted_at, started.id`,
    [rejudgeId, challengeId, statuses],
  );
  await db.query('UPDATE rejudges SET item_count = $2 WHERE id = $1', [rejudgeId, res.rows.length]);
  return res.rows.map((row) => ({
    ...row,
    old_score: row.old_score === null ? null : Number(row.old_score),
  }));
}

/** The items with their progress: the result of each item's run, and whether that run is over. */
export async function listRejudgeItems(db: Queryable, rejudgeId: string): Promise<RejudgeItemRow[]> {
  const res = await db.query<
    Omit<RejudgeItemRow, 'old_score' | 'new_score' | 'old_private_score' | 'new_private_score'> & {
      old_score: string | null;
      new_score: string | null;
      old_private_score: string | null;
      new_private_score: string | null;
    }
  >(
    `SELECT i.submission_id, s.agent_id, a.name AS agent_name, i.run, i.old_score, r.final_score AS new_score,
       (SELECT p.private_score FROM results p WHERE p.submission_id = i.submission_id AND p.run < i.run
         ORDER BY p.run DESC LIMIT 1) AS old_private_score,
       r.private_score AS new_private_score,
       -- Done once both passes are: a complete run's private pass may still be pending.
       (s.judge_run <> i.run OR s.status = 'failed'
         OR (s.status = 'complete' AND r.private_state IS DISTINCT FROM 'pending')) AS done
     FROM rejudge_items i
     JOIN submissions s ON s.id = i.submission_id
     JOIN agents a ON a.id = s.agent_id
     LEFT JOIN results r ON r.submission_id = i.submission_id AND r.run = i.run
     WHERE i.rejudge_id = $1
     ORDER BY s.submitted_at, s.id`,
    [rejudgeId],
  );
  return res.rows.map((row) => ({
    ...row,
    old_score: row.old_score === null ? null : Number(row.old_score),
    new_score: row.new_score === null ? null : Number(row.new_score),
    old_private_score: row.old_private_score === null ? null : Number(row.old_private_score),
    new_private_score: row.new_private_score === null ? null : Number(row.new_private_score),
  }));
}

/** Marks a rejudge done once every item is (idempotent; answers the row). */
export function finishRejudgeIfDone(db: Queryable, rejudgeId: string): Promise<RejudgeRow | null> {
  return queryOne<RejudgeRow>(
    db,
    `UPDATE rejudges j SET status = 'done', finished_at = now()
     WHERE j.id = $1 AND j.status = 'running' AND NOT EXISTS (
       SELECT 1 FROM rejudge_items i JOIN submissions s ON s.id = i.submission_id
       WHERE i.rejudge_id = j.id AND s.judge_run = i.run
         AND (s.status NOT IN ('complete', 'failed') OR EXISTS (
           SELECT 1 FROM results r WHERE r.submission_id = i.submission_id AND r.run = i.run AND r.private_state = 'pending')))
     RETURNING ${REJUDGE_COLUMNS}`,
    [rejudgeId],
  );
}
