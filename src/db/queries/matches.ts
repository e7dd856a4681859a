import type { Queryable } from '../pool';
import { queryOne } from '../pool';
import type { StorableText } from '../../lib/storable-text';

export type MatchStatus = 'scheduled' | 'running' | 'complete' | 'void';

export interface MatchRow {
  id: string;
  challenge_id: string;
  weight_class_id: string;
  kind: 'bout' | 'game';
  status: MatchStatus;
  rated: boolean;
  origin: 'matchmaker' | 'exhibition';
  round_id: string | null;
  reason: string | null;
  created_by: string | null;
  scheduled_at: Date;
  started_at: Date | null;
  ends_at: Date | null;
  bout_ended_at: Date | null;
  completed_at: Date | null;
  /** The absolute deadline (bout: set at start; game: when its judging slots were granted). */
  deadline_at: Date | null;
  result_id: string | null;
  /** bigint: pg returns it as a string. */
  completed_seq: string | null;
  created_at: Date;
  /** scheduled_at as UTC text with microseconds (the listings' cursor). */
  scheduled_at_key?: string;
}

const KEY = `to_char(m.scheduled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS scheduled_at_key`;

export function insertMatch(
  tx: Queryable,
  m: {
    challengeId: string;
    weightClassId: string;
    kind: 'bout' | 'game';
    rated: boolean;
    origin: 'matchmaker' | 'exhibition';
    roundId?: string | null;
    createdBy?: string | null;
  },
): Promise<MatchRow | null> {
  return queryOne<MatchRow>(
    tx,
    `INSERT INTO matches (challenge_id, weight_class_id, kind, rated, origin, round_id, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
    [m.challengeId, m.weightClassId, m.kind, m.rated, m.origin, m.roundId ?? null, m.createdBy ?? null],
  );
}

/**
 * A matchmaking round's matches and their participants in one statement (seats in each group's
 * order): `ids[i]` is the match of `groups[i]` (the caller chooses the ids, so nothing depends on
 * the order RETURNING would give).
 */
export async function insertRoundMatches(
  tx: Queryable,
  m: {
    challengeId: string;
    weightClassId: string;
    kind: 'bout' | 'game';
    rated: boolean;
    roundId: string;
    ids: string[];
    groups: string[][];
  },
): Promise<void> {
  if (m.ids.length === 0) return;
  const matchIds: string[] = [];
  const agentIds: string[] = [];
  const seats: number[] = [];
  m.groups.forEach((group, index) =>
    group.forEach((agentId, seat) => {
      matchIds.push(m.ids[index]);
      agentIds.push(agentId);
      seats.push(seat + 1);
    }),
  );
  await tx.query(
    `WITH inserted AS (
       INSERT INTO matches (id, challenge_id, weight_class_id, kind, rated, origin, round_id)
       SELECT id, $2, $3, $4, $5, 'matchmaker', $6 FROM unnest($1::uuid[]) AS t(id)
       RETURNING id)
     INSERT INTO match_participants (match_id, agent_id, seat, owner_user_id)
     SELECT inserted.id, a.id, t.seat, a.owner_user_id
       FROM unnest($7::uuid[], $8::uuid[], $9::int[]) AS t(match_id, agent_id, seat)
       JOIN inserted ON inserted.id = t.match_id
       JOIN agents a ON a.id = t.agent_id`,
    [m.ids, m.challengeId, m.weightClassId, m.kind, m.rated, m.roundId, matchIds, agentIds, seats],
  );
}

export function findMatchById(db: Queryable, id: string): Promise<MatchRow | null> {
  return queryOne<MatchRow>(db, 'SELECT * FROM matches WHERE id = $1', [id]);
}

/** A match by its id or by its result id. */
export function findMatchByIdOrResultId(db: Queryable, id: string): Promise<MatchRow | null> {
  return queryOne<MatchRow>(db, 'SELECT * FROM matches WHERE id = $1 OR result_id = $1 LIMIT 1', [id]);
}

export function lockMatch(tx: Queryable, id: string): Promise<MatchRow | null> {
  return queryOne<MatchRow>(tx, 'SELECT * FROM matches WHERE id = $1 FOR UPDATE', [id]);
}

export async function listMatchIdsOfRound(db: Queryable, roundId: string): Promise<string[]> {
  const res = await db.query<{ id: string }>('SELECT id FROM matches WHERE round_id = $1 ORDER BY id', [
    roundId,
  ]);
  return res.rows.map((r) => r.id);
}

/**
 * scheduled → running: started now, ending `boutMs` later (once: null when not scheduled); with
 * `deadlineMs`, the match's absolute deadline that long from now.
 */
export function markMatchRunning(
  tx: Queryable,
  id: string,
  boutMs: number,
  deadlineMs: number | null = null,
): Promise<MatchRow | null> {
  return queryOne<MatchRow>(
    tx,
    `UPDATE matches SET status = 'running', started_at = now(), ends_at = now() + make_interval(secs => $2::double precision / 1000),
            deadline_at = now() + make_interval(secs => $3::double precision / 1000)
      WHERE id = $1 AND status = 'scheduled' RETURNING *`,
    [id, boutMs, deadlineMs],
  );
}

/** A running match's deadline, `ms` from now, set once (a retried grant keeps the first). */
export function setMatchDeadline(tx: Queryable, id: string, ms: number): Promise<MatchRow | null> {
  return queryOne<MatchRow>(
    tx,
    `UPDATE matches SET deadline_at = COALESCE(deadline_at, now() + make_interval(secs => $2::double precision / 1000))
      WHERE id = $1 AND status = 'running' RETURNING *`,
    [id, ms],
  );
}

/** Running matches whose deadline passed more than `graceMs` ago, oldest deadline first. */
export async function listMatchIdsPastDeadline(
  db: Queryable,
  graceMs: number,
  limit: number,
): Promise<string[]> {
  const res = await db.query<{ id: string }>(
    `SELECT id FROM matches
      WHERE status = 'running' AND deadline_at < now() - make_interval(secs => $1::double precision / 1000)
      ORDER BY deadline_at LIMIT $2`,
    [graceMs, limit],
  );
  return res.rows.map((r) => r.id);
}

/** Running matches started more than `startedBeforeMs` ago, by id after `afterId` (a sweep's cursor). */
export async function listRunningMatchIdsAfter(
  db: Queryable,
  afterId: string | null,
  startedBeforeMs: number,
  limit: number,
): Promise<string[]> {
  const res = await db.query<{ id: string }>(
    `SELECT id FROM matches
      WHERE status = 'running' AND started_at < now() - make_interval(secs => $2::double precision / 1000)
        AND ($1::uuid IS NULL OR id > $1::uuid)
      ORDER BY id LIMIT $3`,
    [afterId, startedBeforeMs, limit],
  );
  return res.rows.map((r) => r.id);
}

/** Records when the bout ended (once): now, capped by ends_at. */
export function markBoutEnded(tx: Queryable, id: string): Promise<MatchRow | null> {
  return queryOne<MatchRow>(
    tx,
    `UPDATE matches SET bout_ended_at = LEAST(now(), COALESCE(ends_at, now()))
      WHERE id = $1 AND bout_ended_at IS NULL RETURNING *`,
    [id],
  );
}

/** → complete | void, once: completion time, result id and the completion sequence number. */
export function finishMatch(
  tx: Queryable,
  id: string,
  status: 'complete' | 'void',
  /** May quote an error's words (a program's among them): storable text. */
  reason: StorableText | null,
): Promise<MatchRow | null> {
  return queryOne<MatchRow>(
    tx,
    `UPDATE matches SET status = $2, reason = COALESCE($3, reason), completed_at = now(),
            bout_ended_at = COALESCE(bout_ended_at, LEAST(now(), COALESCE(ends_at, now()))),
            result_id = gen_random_uuid(), completed_seq = nextval('match_completed_seq')
      WHERE id = $1 AND status IN ('scheduled', 'running') RETURNING *`,
    [id, status, reason],
  );
}

export interface MatchListFilter {
  challengeId?: string;
  agentId?: string;
  status?: MatchStatus;
  after?: { scheduledAt: string; id: string };
  limit: number;
}

/** Newest first (scheduled_at, id), limit + 1 rows for keyset paging. */
export async function listMatches(db: Queryable, f: MatchListFilter): Promise<MatchRow[]> {
  const values: unknown[] = [];
  const where: string[] = [];
  const add = (clause: (n: number) => string, value: unknown) => {
    values.push(value);
    where.push(clause(values.length));
  };
  if (f.challengeId) add((n) => `m.challenge_id = $${n}`, f.challengeId);
  if (f.status) add((n) => `m.status = $${n}`, f.status);
  if (f.agentId)
    add(
      (n) => `EXISTS (SELECT 1 FROM match_participants p WHERE p.match_id = m.id AND p.agent_id = $${n})`,
      f.agentId,
    );
  if (f.after) {
    values.push(f.after.scheduledAt, f.after.id);
    where.push(`(m.scheduled_at, m.id) < ($${values.length - 1}::timestamptz, $${values.length}::uuid)`);
  }
  values.push(f.limit + 1);
  const res = await db.query<MatchRow>(
    `SELECT m.*, ${KEY} FROM matches m ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY m.scheduled_at DESC, m.id DESC LIMIT $${values.length}`,
    values,
  );
  return res.rows;
}

/** A challenge's matches still scheduled (a workflow that never started starts at the next round). */
export async function listScheduledMatchIds(
  db: Queryable,
  challengeId: string,
  limit: number,
): Promise<string[]> {
  const res = await db.query<{ id: string }>(
    "SELECT id FROM matches WHERE challenge_id = $1 AND status = 'scheduled' ORDER BY scheduled_at LIMIT $2",
    [challengeId, limit],
  );
  return res.rows.map((r) => r.id);
}
