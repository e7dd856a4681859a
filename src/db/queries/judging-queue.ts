/**
 * The judging queue (migration 5010, docs/decisions/judging.md "One queue for all judging work"):
 * rows of work waiting for or holding sandbox slots, the owners an entry counts against when it
 * has several (migration 6020, judging_queue_owners), and the live workers' slots.
 */
import type { Queryable } from '../pool';

export type QueueWorkKind = 'submission' | 'rejudge' | 'dry_run' | 'game' | 'private_pass';

/** One owner's share of an entry of several owners (a seat of a game match). */
export interface QueueOwnerShare {
  ownerUserId: string;
  agentId: string | null;
  slots: number;
}

export interface QueueRow {
  seq: number;
  work_key: string;
  kind: QueueWorkKind;
  priority: number;
  owner_user_id: string | null;
  agent_id: string | null;
  slots: number;
  state: 'waiting' | 'running';
  /** The entry's owners when it has several (judging_queue_owners); empty otherwise. */
  owners: { owner_user_id: string; agent_id: string | null; slots: number }[];
}

export interface NewQueueWork {
  workKey: string;
  kind: QueueWorkKind;
  /** QUEUE_PRIORITY (src/domain/judging-queue/order.ts): 0 normal, 1 low. */
  priority: number;
  ownerUserId: string | null;
  agentId: string | null;
  submissionId: string | null;
  run: number | null;
  slots: number;
  /** Several owners (one share per seat); when given, ownerUserId and agentId are null. */
  owners?: readonly QueueOwnerShare[];
}

const ROW_COLUMNS = `seq::int AS seq, work_key, kind, priority, owner_user_id, agent_id, slots, state`;

/** Everything a pass of the queue decides on is under this lock (one pass at a time, all workers). */
const QUEUE_LOCK = `hashtextextended('judging-queue', 0)`;

/**
 * Takes the queue's lock for this transaction. `wait: false` answers false at once when another
 * pass holds it (that pass grants whatever this one would). Must run inside a transaction.
 */
export async function lockJudgingQueue(tx: Queryable, wait: boolean): Promise<boolean> {
  if (wait) {
    await tx.query(`SELECT pg_advisory_xact_lock(${QUEUE_LOCK})`);
    return true;
  }
  const res = await tx.query<{ locked: boolean }>(
    `SELECT pg_try_advisory_xact_lock(${QUEUE_LOCK}) AS locked`,
  );
  return res.rows[0].locked;
}

/**
 * Puts a piece of work in the queue with its owners, or (the same key again: a retried activity)
 * keeps its place and refreshes it. Answers the row as it now is.
 */
export async function enqueueWork(
  tx: Queryable,
  work: NewQueueWork,
  ttlSeconds: number,
): Promise<Omit<QueueRow, 'owners'>> {
  const owners = work.owners ?? [];
  const res = await tx.query<Omit<QueueRow, 'owners'>>(
    `WITH entry AS (
       INSERT INTO judging_queue (work_key, kind, priority, owner_user_id, agent_id, submission_id, run, slots, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() + make_interval(secs => $9))
       ON CONFLICT (work_key) DO UPDATE
         SET expires_at = GREATEST(judging_queue.expires_at, EXCLUDED.expires_at)
       RETURNING *
     ), shares AS (
       INSERT INTO judging_queue_owners (seq, share, owner_user_id, agent_id, slots)
       SELECT entry.seq, o.share, o.owner_user_id, o.agent_id, o.slots
         FROM entry, unnest($10::uuid[], $11::uuid[], $12::int[]) WITH ORDINALITY AS o(owner_user_id, agent_id, slots, share)
       ON CONFLICT (seq, share) DO NOTHING
     )
     SELECT ${ROW_COLUMNS} FROM entry`,
    [
      work.workKey,
      work.kind,
      work.priority,
      work.ownerUserId,
      work.agentId,
      work.submissionId,
      work.run,
      work.slots,
      ttlSeconds,
      owners.map((o) => o.ownerUserId),
      owners.map((o) => o.agentId),
      owners.map((o) => o.slots),
    ],
  );
  return res.rows[0];
}

/** Drops work nobody refreshed in time (its waiter or its judging died). Under the queue's lock. */
export async function dropExpiredWork(tx: Queryable): Promise<number> {
  const res = await tx.query(`DELETE FROM judging_queue WHERE expires_at <= now()`);
  return res.rowCount ?? 0;
}

/**
 * Every live row, running first, then waiting in arrival order (at most `limit` waiting rows),
 * each with its owners when it has several.
 */
export async function listQueue(tx: Queryable, waitingLimit: number): Promise<QueueRow[]> {
  const res = await tx.query<QueueRow>(
    `WITH live AS (
       (SELECT * FROM judging_queue WHERE state = 'running')
       UNION ALL
       (SELECT * FROM judging_queue WHERE state = 'waiting' ORDER BY seq LIMIT $1)
     )
     SELECT ${ROW_COLUMNS},
            COALESCE((SELECT json_agg(json_build_object('owner_user_id', o.owner_user_id,
                                                        'agent_id', o.agent_id, 'slots', o.slots) ORDER BY o.share)
                        FROM judging_queue_owners o WHERE o.seq = live.seq), '[]'::json) AS owners
       FROM live
      ORDER BY state = 'waiting', seq`,
    [waitingLimit],
  );
  return res.rows;
}

/** Grants these waiting rows their slots; a running row now lives `ttlSeconds` past each refresh. */
export async function grantWork(tx: Queryable, seqs: readonly number[], ttlSeconds: number): Promise<void> {
  if (seqs.length === 0) return;
  await tx.query(
    `UPDATE judging_queue SET state = 'running', granted_at = now(), expires_at = now() + make_interval(secs => $2)
      WHERE seq = ANY($1::bigint[]) AND state = 'waiting'`,
    [seqs, ttlSeconds],
  );
}

/** Refreshes a row (its waiter polls, or its judging ticks); answers its state, null when it is gone. */
export async function touchWork(
  db: Queryable,
  workKey: string,
  ttlSeconds: number,
): Promise<{ state: 'waiting' | 'running'; slots: number } | null> {
  const res = await db.query<{ state: 'waiting' | 'running'; slots: number }>(
    `UPDATE judging_queue SET expires_at = GREATEST(expires_at, now() + make_interval(secs => $2))
      WHERE work_key = $1 RETURNING state, slots`,
    [workKey, ttlSeconds],
  );
  return res.rows[0] ?? null;
}

/** A row's state without refreshing it; null when it is gone. */
export async function workState(
  db: Queryable,
  workKey: string,
): Promise<{ state: 'waiting' | 'running'; slots: number } | null> {
  const res = await db.query<{ state: 'waiting' | 'running'; slots: number }>(
    `SELECT state, slots FROM judging_queue WHERE work_key = $1 AND expires_at > now()`,
    [workKey],
  );
  return res.rows[0] ?? null;
}

/** The slots a piece of work holds (null: not holding any). */
export async function heldSlots(db: Queryable, workKey: string): Promise<number | null> {
  const res = await db.query<{ slots: number }>(
    `SELECT slots FROM judging_queue WHERE work_key = $1 AND state = 'running' AND expires_at > now()`,
    [workKey],
  );
  return res.rows[0]?.slots ?? null;
}

/** Ends a piece of work: its slots return to the queue (or it leaves the queue unserved). */
export async function removeWork(db: Queryable, workKey: string): Promise<boolean> {
  const res = await db.query(`DELETE FROM judging_queue WHERE work_key = $1`, [workKey]);
  return (res.rowCount ?? 0) > 0;
}

/** Ends every queued run of a submission up to `run` (its result or failure is recorded, or it went stale). */
export async function removeSubmissionWork(db: Queryable, submissionId: string, run: number): Promise<void> {
  await db.query(`DELETE FROM judging_queue WHERE submission_id = $1 AND run <= $2`, [submissionId, run]);
}

/** Records (or refreshes) a live worker's judging slots. */
export async function recordJudgingWorker(db: Queryable, workerId: string, slots: number): Promise<void> {
  await db.query(
    `INSERT INTO judging_workers (worker_id, slots, last_seen_at) VALUES ($1, $2, now())
     ON CONFLICT (worker_id) DO UPDATE SET slots = EXCLUDED.slots, last_seen_at = now()`,
    [workerId, slots],
  );
}

/** A worker that stops says so (the row would otherwise only age out). */
export async function forgetJudgingWorker(db: Queryable, workerId: string): Promise<void> {
  await db.query(`DELETE FROM judging_workers WHERE worker_id = $1`, [workerId]);
}

/** The judging slots of the workers seen within `liveSeconds` (0 when none). */
export async function liveWorkerSlots(db: Queryable, liveSeconds: number): Promise<number> {
  const res = await db.query<{ slots: number }>(
    `SELECT COALESCE(sum(slots), 0)::int AS slots FROM judging_workers
      WHERE last_seen_at > now() - make_interval(secs => $1)`,
    [liveSeconds],
  );
  return res.rows[0].slots;
}

/** The queue as operators and tests read it: per state, the rows and slots (live rows only). */
export async function queueSummary(
  db: Queryable,
): Promise<{ waiting: number; running: number; runningSlots: number }> {
  const res = await db.query<{ waiting: number; running: number; running_slots: number }>(
    `SELECT count(*) FILTER (WHERE state = 'waiting')::int AS waiting,
            count(*) FILTER (WHERE state = 'running')::int AS running,
            COALESCE(sum(slots) FILTER (WHERE state = 'running'), 0)::int AS running_slots
       FROM judging_queue WHERE expires_at > now()`,
  );
  const row = res.rows[0];
  return { waiting: row.waiting, running: row.running, runningSlots: row.running_slots };
}
