import type { StorableJson, StorableText } from '../../lib/storable-text';
import type { Queryable } from '../pool';
import { queryOne } from '../pool';
import type { Bound } from './bound';

export type SubmissionStatus = 'received' | 'queued' | 'judging' | 'complete' | 'failed';
export const SUBMISSION_STATUSES: readonly SubmissionStatus[] = [
  'received',
  'queued',
  'judging',
  'complete',
  'failed',
];

export interface SubmissionFile {
  path: string;
  content: string;
  language?: string;
}

export interface SubmissionRow {
  id: string;
  session_id: string;
  challenge_id: string;
  agent_id: string;
  status: SubmissionStatus;
  content: string;
  files: SubmissionFile[];
  /** The body's `language` (null: none named). */
  language: string | null;
  artifact_hash: string | null;
  idempotency_key: string | null;
  sandbox: boolean;
  failure_reason: string | null;
  workflow_started_at: Date | null;
  judge_run: number;
  submitted_at: Date;
  created_at: Date;
  updated_at: Date;
  /** Fair contests: when the owner selected it for the final board (null: not selected). */
  selected_at: Date | null;
  /** The agent's owner (joined), for ownership checks and event routing. */
  owner_user_id: string;
}

/** Everything but the (possibly large) content and files. */
const LIGHT_COLUMNS = `s.id, s.session_id, s.challenge_id, s.agent_id, s.status, s.artifact_hash, s.idempotency_key, s.sandbox,
  s.failure_reason, s.workflow_started_at, s.judge_run, s.submitted_at, s.created_at, s.updated_at, s.selected_at, a.owner_user_id`;

export type SubmissionSummaryRow = Omit<SubmissionRow, 'content' | 'files' | 'language'>;

export function findSubmissionById(
  db: Queryable,
  id: string,
  forUpdate = false,
): Promise<SubmissionRow | null> {
  return queryOne<SubmissionRow>(
    db,
    `SELECT s.*, a.owner_user_id FROM submissions s JOIN agents a ON a.id = s.agent_id WHERE s.id = $1${forUpdate ? ' FOR UPDATE OF s' : ''}`,
    [id],
  );
}

export function findSubmissionSummary(db: Queryable, id: string): Promise<SubmissionSummaryRow | null> {
  return queryOne<SubmissionSummaryRow>(
    db,
    `SELECT ${LIGHT_COLUMNS} FROM submissions s JOIN agents a ON a.id = s.agent_id WHERE s.id = $1`,
    [id],
  );
}

export function findSubmissionByIdempotencyKey(
  db: Queryable,
  agentId: string,
  key: string,
): Promise<SubmissionRow | null> {
  return queryOne<SubmissionRow>(
    db,
    `SELECT s.*, a.owner_user_id FROM submissions s JOIN agents a ON a.id = s.agent_id WHERE s.agent_id = $1 AND s.idempotency_key = $2`,
    [agentId, key],
  );
}

export async function listSessionSubmissions(
  db: Queryable,
  sessionId: string,
): Promise<SubmissionSummaryRow[]> {
  const res = await db.query<SubmissionSummaryRow>(
    `SELECT ${LIGHT_COLUMNS} FROM submissions s JOIN agents a ON a.id = s.agent_id WHERE s.session_id = $1 ORDER BY s.created_at, s.id`,
    [sessionId],
  );
  return res.rows;
}

/** Submissions that count against the per-session limit (failed judgings do not). */
export async function countCountingSessionSubmissions(db: Queryable, sessionId: string): Promise<number> {
  const res = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM submissions WHERE session_id = $1 AND status <> 'failed' AND charged`,
    [sessionId],
  );
  return res.rows[0].n;
}

/** Submissions of the agent to the challenge in the last 24 hours that count against the daily limit. */
export async function countCountingDaySubmissions(
  db: Queryable,
  agentId: string,
  challengeId: string,
): Promise<number> {
  const res = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM submissions
     WHERE agent_id = $1 AND challenge_id = $2 AND created_at > now() - interval '24 hours' AND status <> 'failed' AND charged`,
    [agentId, challengeId],
  );
  return res.rows[0].n;
}

/** The oldest submission counting against the rolling 24-hour limit (failed judgings do not count), or null. */
export async function oldestCountingDaySubmissionAt(
  db: Queryable,
  agentId: string,
  challengeId: string,
): Promise<Date | null> {
  const res = await db.query<{ at: Date | null }>(
    `SELECT min(created_at) AS at FROM submissions
     WHERE agent_id = $1 AND challenge_id = $2 AND created_at > now() - interval '24 hours' AND status <> 'failed' AND charged`,
    [agentId, challengeId],
  );
  return res.rows[0]?.at ?? null;
}

/** Whether the submission counts against the submission limits (a compile error's is given back). */
export async function setSubmissionCharged(db: Queryable, id: string, charged: boolean): Promise<void> {
  await db.query('UPDATE submissions SET charged = $2 WHERE id = $1 AND charged <> $2', [id, charged]);
}

export interface NewSubmission {
  sessionId: string;
  challengeId: string;
  agentId: string;
  /** What the competitor sent: through src/lib/storable-text.ts. */
  content: StorableText;
  /** SubmissionFile[] as storable JSON. */
  files: StorableJson;
  language?: string | null;
  artifactHash: string;
  idempotencyKey: string | null;
  sandbox: boolean;
}

export async function insertSubmission(
  db: Queryable,
  s: NewSubmission,
): Promise<Omit<SubmissionRow, 'owner_user_id'>> {
  const row = await queryOne<Omit<SubmissionRow, 'owner_user_id'>>(
    db,
    `INSERT INTO submissions (session_id, challenge_id, agent_id, content, files, artifact_hash, idempotency_key, sandbox, language)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
    [
      s.sessionId,
      s.challengeId,
      s.agentId,
      s.content,
      s.files,
      s.artifactHash,
      s.idempotencyKey,
      s.sandbox,
      s.language ?? null,
    ],
  );
  return row!;
}

export interface SubmissionEventRow {
  id: string;
  submission_id: string;
  run: number;
  status: SubmissionStatus;
  message: string;
  data: Record<string, unknown> | null;
  created_at: Date;
}

/** Records a transition once per (submission, run, status); a repeat is a no-op. */
export async function insertSubmissionEvent(
  db: Queryable,
  e: {
    submissionId: string;
    run: number;
    status: SubmissionStatus;
    /** May quote a judge's or a database's words: storable text. */
    message: StorableText;
    data?: StorableJson | null;
  },
): Promise<void> {
  await db.query({
    name: 'submission_event_insert',
    text: `INSERT INTO submission_events (submission_id, run, status, message, data) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (submission_id, run, status) DO NOTHING`,
    values: [e.submissionId, e.run, e.status, e.message, e.data ?? null],
  });
}

/** "queued" events of many started runs at once (a bulk rejudge; one statement). */
export async function insertQueuedEvents(
  db: Queryable,
  items: { submission_id: string; judge_run: number }[],
  message: string,
): Promise<void> {
  if (items.length === 0) return;
  await db.query(
    `INSERT INTO submission_events (submission_id, run, status, message)
     SELECT id, run, 'queued', $3 FROM unnest($1::uuid[], $2::int[]) AS t(id, run)
     ON CONFLICT (submission_id, run, status) DO NOTHING`,
    [items.map((i) => i.submission_id), items.map((i) => i.judge_run), message],
  );
}

/** How many submissions of a challenge are in each status (the console's rejudge form). */
export async function countSubmissionsByStatus(
  db: Queryable,
  challengeId: string,
): Promise<Partial<Record<SubmissionStatus, number>>> {
  const res = await db.query<{ status: SubmissionStatus; count: number }>(
    'SELECT status, count(*)::int AS count FROM submissions WHERE challenge_id = $1 GROUP BY status',
    [challengeId],
  );
  return Object.fromEntries(res.rows.map((r) => [r.status, r.count]));
}

export async function listSubmissionEvents(
  db: Queryable,
  submissionId: string,
): Promise<SubmissionEventRow[]> {
  const res = await db.query<SubmissionEventRow>(
    'SELECT * FROM submission_events WHERE submission_id = $1 ORDER BY id',
    [submissionId],
  );
  return res.rows;
}

/** Earlier states each status may be reached from: a status only ever moves forward. */
export const FORWARD_FROM: Record<Exclude<SubmissionStatus, 'received'>, SubmissionStatus[]> = {
  queued: ['received'],
  judging: ['received', 'queued'],
  complete: ['received', 'queued', 'judging'],
  failed: ['received', 'queued', 'judging'],
};

/**
 * Moves a submission forward within one judge run. Returns the updated row, or null when the
 * submission is already at or past `to` (a retried activity) or the run is stale.
 */
export function advanceSubmissionStatus(
  db: Queryable,
  id: string,
  run: number,
  to: Exclude<SubmissionStatus, 'received'>,
  failureReason: StorableText | null = null,
): Promise<Pick<
  SubmissionRow,
  | 'id'
  | 'session_id'
  | 'challenge_id'
  | 'agent_id'
  | 'status'
  | 'sandbox'
  | 'judge_run'
  | 'submitted_at'
  | 'owner_user_id'
> | null> {
  return queryOne(
    db,
    `UPDATE submissions SET status = $3, failure_reason = $5, updated_at = now()
     WHERE id = $1 AND judge_run = $2 AND status = ANY($4::text[])
     RETURNING id, session_id, challenge_id, agent_id, status, sandbox, judge_run, submitted_at,
       (SELECT owner_user_id FROM agents WHERE agents.id = submissions.agent_id) AS owner_user_id`,
    [id, run, to, FORWARD_FROM[to], failureReason],
    'submission_advance',
  );
}

export async function markWorkflowStarted(db: Queryable, id: string, run: number): Promise<void> {
  await db.query(
    'UPDATE submissions SET workflow_started_at = now() WHERE id = $1 AND judge_run = $2 AND workflow_started_at IS NULL',
    [id, run],
  );
}

export interface UnstartedSubmission {
  id: string;
  challenge_id: string;
  agent_id: string;
  judge_run: number;
}

/**
 * Accepted submissions (or rejudge runs) whose workflow never started: the API died between its
 * commit and the start, or Temporal was unreachable. `updated_at` is when the run was accepted.
 */
export async function listUnstartedSubmissions(
  db: Queryable,
  olderThanMs: number,
  limit: number,
): Promise<UnstartedSubmission[]> {
  const res = await db.query<UnstartedSubmission>(
    `SELECT id, challenge_id, agent_id, judge_run FROM submissions
     WHERE workflow_started_at IS NULL AND updated_at < now() - make_interval(secs => $1::double precision / 1000)
     ORDER BY created_at LIMIT $2`,
    [olderThanMs, limit],
  );
  return res.rows;
}

/**
 * Starts a new judge run of a finished submission (rejudge): the run number goes up, the status
 * goes back to queued and the workflow is started anew. Null when the submission is still being judged.
 */
export function beginRejudge(
  db: Queryable,
  id: string,
): Promise<{
  id: string;
  judge_run: number;
  challenge_id: string;
  agent_id: string;
  sandbox: boolean;
} | null> {
  return queryOne(
    db,
    `UPDATE submissions SET judge_run = judge_run + 1, status = 'queued', failure_reason = NULL, workflow_started_at = NULL,
       updated_at = now()
     WHERE id = $1 AND status IN ('complete', 'failed')
     RETURNING id, judge_run, challenge_id, agent_id, sandbox`,
    [id],
  );
}

/**
 * Runs whose workflow started but that are still not complete/failed after `olderThanMs` without
 * any progress: candidates for the sweeper's "is the workflow still alive?" check.
 */
export async function listStalledSubmissions(
  db: Queryable,
  olderThanMs: number,
  limit: number,
): Promise<UnstartedSubmission[]> {
  const res = await db.query<UnstartedSubmission>(
    `SELECT id, challenge_id, agent_id, judge_run FROM submissions
     WHERE status IN ('received', 'queued', 'judging') AND workflow_started_at IS NOT NULL
       AND updated_at < now() - make_interval(secs => $1::double precision / 1000)
     ORDER BY updated_at LIMIT $2`,
    [olderThanMs, limit],
  );
  return res.rows;
}

/** Keyset position in a submission history: newest first, ties by id. */
export interface SubmissionHistoryKey {
  /** created_at to the microsecond (a JavaScript Date would drop those and skip or repeat rows). */
  createdAt: string;
  id: string;
}

export interface SubmissionHistoryFilter {
  /** Every agent of this user, unless `agentId` narrows it. */
  ownerUserId?: string;
  agentId?: string;
  challengeId?: string;
  status?: SubmissionStatus;
  /** Only live (false) or only sandbox (true) submissions; undefined: both. */
  sandbox?: boolean;
  /** Current result's score at least / at most (bounds included); a submission without one never matches. */
  minScore?: number;
  maxScore?: number;
  after: SubmissionHistoryKey | null;
  limit: number;
}

export type SubmissionHistoryRow = SubmissionSummaryRow & {
  /** The language the submission was judged as (null: detected from the file names, or text). */
  language: string | null;
  agent_name: string;
  challenge_title: string;
  result_id: string | null;
  /** numeric(5,2) as text; null until judged. */
  final_score: string | null;
  /** numeric(5,2) as text; null without private tests (operators' listings only). */
  private_score: string | null;
  /** none | pending | done (operators' listings only); null until judged. */
  private_state: string | null;
  result_state: string | null;
  judged_at: Date | null;
  /** created_at as UTC text with microseconds, for the cursor. */
  created_at_key: string;
};

/**
 * A page of submissions for an owner or one agent, newest first (created_at DESC, id DESC), with
 * each one's current result. Walks submissions_history_idx; `limit` is the page size plus one.
 */
export async function listSubmissionHistory(
  db: Queryable,
  f: SubmissionHistoryFilter,
): Promise<SubmissionHistoryRow[]> {
  const where: string[] = [];
  const args: unknown[] = [];
  const arg = (v: unknown) => {
    args.push(v);
    return `$${args.length}`;
  };
  if (f.agentId) where.push(`s.agent_id = ${arg(f.agentId)}`);
  if (f.ownerUserId) where.push(`a.owner_user_id = ${arg(f.ownerUserId)}`);
  if (f.challengeId) where.push(`s.challenge_id = ${arg(f.challengeId)}`);
  if (f.status) where.push(`s.status = ${arg(f.status)}`);
  if (f.sandbox !== undefined) where.push(`s.sandbox = ${arg(f.sandbox)}`);
  if (f.minScore !== undefined) where.push(`r.final_score >= ${arg(f.minScore)}::numeric`);
  if (f.maxScore !== undefined) where.push(`r.final_score <= ${arg(f.maxScore)}::numeric`);
  if (f.after)
    where.push(`(s.created_at, s.id) < (${arg(f.after.createdAt)}::timestamptz, ${arg(f.after.id)}::uuid)`);
  const res = await db.query<SubmissionHistoryRow>(
    `SELECT ${LIGHT_COLUMNS}, s.language, a.name AS agent_name, c.title AS challenge_title,
       r.id AS result_id, r.final_score::text AS final_score, r.private_score::text AS private_score, r.private_state, r.result_state, r.judged_at,
       to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_at_key
     FROM submissions s
     JOIN agents a ON a.id = s.agent_id
     JOIN challenges c ON c.id = s.challenge_id
     LEFT JOIN results r ON r.submission_id = s.id AND r.superseded_at IS NULL
     ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY s.created_at DESC, s.id DESC
     LIMIT ${arg(f.limit)}`,
    args,
  );
  return res.rows;
}

/** The kind of judge the submission's challenge uses (null when the challenge is gone). */
export async function findJudgeKindOfSubmission(db: Queryable, submissionId: string): Promise<string | null> {
  const row = await queryOne<{ kind: string | null }>(
    db,
    `SELECT c.judge->>'kind' AS kind FROM submissions s JOIN challenges c ON c.id = s.challenge_id WHERE s.id = $1`,
    [submissionId],
    'submission_judge_kind',
  );
  return row?.kind ?? null;
}

/** Each given submission's agent name and challenge title (the audit trail's labels). */
export async function submissionLabelsOf(
  db: Queryable,
  ids: string[],
): Promise<Map<string, { agent_name: string; challenge_title: string }>> {
  if (ids.length === 0) return new Map();
  const res = await db.query<{ id: string; agent_name: string; challenge_title: string }>(
    `SELECT s.id, a.name AS agent_name, c.title AS challenge_title
       FROM submissions s JOIN agents a ON a.id = s.agent_id JOIN challenges c ON c.id = s.challenge_id
      WHERE s.id = ANY($1::uuid[])`,
    [ids],
  );
  return new Map(
    res.rows.map((r) => [r.id, { agent_name: r.agent_name, challenge_title: r.challenge_title }]),
  );
}

/** Marks (or unmarks) a submission as selected for the final board; returns the fresh row. */
export function setSubmissionSelected(
  db: Queryable,
  id: string,
  selected: boolean,
): Promise<SubmissionSummaryRow | null> {
  return queryOne<SubmissionSummaryRow>(
    db,
    `UPDATE submissions s SET selected_at = CASE WHEN $2 THEN COALESCE(s.selected_at, now()) ELSE NULL END
       FROM agents a WHERE a.id = s.agent_id AND s.id = $1
     RETURNING ${LIGHT_COLUMNS}`,
    [id, selected],
  );
}

/** How many of an agent's submissions to a challenge are selected for the final board. */
export async function countSelectedSubmissions(
  db: Queryable,
  challengeId: string,
  agentId: string,
): Promise<number> {
  const row = await queryOne<{ n: number }>(
    db,
    'SELECT count(*)::int AS n FROM submissions WHERE challenge_id = $1 AND agent_id = $2 AND selected_at IS NOT NULL',
    [challengeId, agentId],
  );
  return row?.n ?? 0;
}

/** Which of the given submissions belong to this agent in this challenge, live (not sandbox). */
export async function listSelectableIds(
  db: Queryable,
  challengeId: string,
  agentId: string,
  ids: readonly string[],
): Promise<{ id: string; selected: boolean }[]> {
  if (ids.length === 0) return [];
  const res = await db.query<{ id: string; selected: boolean }>(
    `SELECT id, selected_at IS NOT NULL AS selected FROM submissions
      WHERE challenge_id = $1 AND agent_id = $2 AND NOT sandbox AND id = ANY($3::uuid[])`,
    [challengeId, agentId, ids],
  );
  return res.rows;
}

/** The ids of an agent's submissions to a challenge that are selected for the final board. */
export async function listSelectedIds(
  db: Queryable,
  challengeId: string,
  agentId: string,
): Promise<string[]> {
  const res = await db.query<{ id: string }>(
    'SELECT id FROM submissions WHERE challenge_id = $1 AND agent_id = $2 AND selected_at IS NOT NULL',
    [challengeId, agentId],
  );
  return res.rows.map((r) => r.id);
}

/**
 * What starting a submission run's workflow records (src/domain/submissions/workflow-start.ts):
 * that the run's workflow started, which is what the sweeper looks at. The domain takes it through
 * its deps (`stores.workflowStarts`; this SQL one unless a unit test hands it
 * test/fakes/stores/workflow-starts.ts); test/contracts/workflow-start-store.cases.ts holds both to
 * the same cases.
 */
export interface WorkflowStartStore {
  /** The run's workflow started: its time is kept from the first call on; another run than the current one is left alone. */
  markWorkflowStarted: Bound<typeof markWorkflowStarted>;
}

/** The workflow starts' store on PostgreSQL. */
export function sqlWorkflowStartStore(db: Queryable): WorkflowStartStore {
  return { markWorkflowStarted: (id, run) => markWorkflowStarted(db, id, run) };
}
