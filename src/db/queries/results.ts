import type { JudgeOutcome, ResultState } from '../../judging';
import type { StorableJson, StorableText } from '../../lib/storable-text';
import type { Queryable } from '../pool';
import { queryOne } from '../pool';

export type PrivateState = 'none' | 'pending' | 'done';

export interface ResultRow {
  id: string;
  submission_id: string;
  challenge_id: string;
  agent_id: string;
  run: number;
  /** numeric(5,2), parsed to a number by the queries below. */
  final_score: number;
  /** Over the private tests or criteria (numeric(5,2), parsed); null when there are none. */
  private_score: number | null;
  /** none: no private test; pending: the private pass has not finished; done: private_score is final. */
  private_state: PrivateState;
  /** Why a private pass that could not finish scored 0; null otherwise. */
  private_reason: string | null;
  /** When the private pass was stored (null while pending, or without private tests). */
  private_judged_at: Date | null;
  result_state: ResultState;
  judge: string;
  summary: string;
  breakdown: JudgeOutcome;
  sandbox: boolean;
  submitted_at: Date;
  judged_at: Date;
  superseded_at: Date | null;
  created_at: Date;
  /** The agent's owner (joined), for access checks. */
  owner_user_id: string;
}

type RawResult = Omit<ResultRow, 'final_score' | 'private_score'> & {
  final_score: string;
  private_score: string | null;
};
const parse = (row: RawResult | null): ResultRow | null =>
  row
    ? {
        ...row,
        final_score: Number(row.final_score),
        private_score: row.private_score === null ? null : Number(row.private_score),
      }
    : null;

const SELECT = 'SELECT r.*, a.owner_user_id FROM results r JOIN agents a ON a.id = r.agent_id';

export async function findResultById(db: Queryable, id: string): Promise<ResultRow | null> {
  return parse(await queryOne<RawResult>(db, `${SELECT} WHERE r.id = $1`, [id]));
}

export async function findCurrentResultForSubmission(
  db: Queryable,
  submissionId: string,
): Promise<ResultRow | null> {
  return parse(
    await queryOne<RawResult>(db, `${SELECT} WHERE r.submission_id = $1 AND r.superseded_at IS NULL`, [
      submissionId,
    ]),
  );
}

export async function findResultForRun(
  db: Queryable,
  submissionId: string,
  run: number,
): Promise<ResultRow | null> {
  return parse(
    await queryOne<RawResult>(db, `${SELECT} WHERE r.submission_id = $1 AND r.run = $2`, [submissionId, run]),
  );
}

export interface NewResult {
  submissionId: string;
  challengeId: string;
  agentId: string;
  run: number;
  finalScore: number;
  privateScore: number | null;
  /** 'pending' when a private pass follows (private_score stays null until it is done). */
  privateState: PrivateState;
  resultState: ResultState;
  judge: string;
  /** Outside text (a grader's words, a program's output): through src/lib/storable-text.ts. */
  summary: StorableText;
  /** The JudgeOutcome as storable JSON (excerpts, compiler messages, a grader's answer). */
  breakdown: StorableJson;
  sandbox: boolean;
  submittedAt: Date;
}

/** Supersedes the submission's previous result (history is kept) and stores this run's one. */
export async function storeResult(db: Queryable, r: NewResult): Promise<{ id: string; judged_at: Date }> {
  await db.query(
    'UPDATE results SET superseded_at = now() WHERE submission_id = $1 AND superseded_at IS NULL AND run < $2',
    [r.submissionId, r.run],
  );
  const row = await queryOne<{ id: string; judged_at: Date }>(
    db,
    `INSERT INTO results (submission_id, challenge_id, agent_id, run, final_score, result_state, judge, summary, breakdown, sandbox, submitted_at,
                          private_score, private_state, private_judged_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, CASE WHEN $13 = 'done' THEN now() END)
     RETURNING id, judged_at`,
    [
      r.submissionId,
      r.challengeId,
      r.agentId,
      r.run,
      r.finalScore,
      r.resultState,
      r.judge,
      r.summary,
      r.breakdown,
      r.sandbox,
      r.submittedAt,
      r.privateScore,
      r.privateState,
    ],
  );
  return row!;
}

/**
 * Stores a run's private pass (its score, the breakdown with the private items put back, and the
 * reason when it could not finish): `pending` → `done`, once. Answers the row's challenge and
 * agent, or null when the run's pass was already stored (a retry) or it has none.
 */
export async function storePrivatePass(
  db: Queryable,
  p: {
    submissionId: string;
    run: number;
    privateScore: number | null;
    /** Why the pass could not finish (may quote an error's words): storable text. */
    reason: StorableText | null;
    /** The breakdown with the private items put back (program output, a grader's words). */
    breakdown: StorableJson;
  },
): Promise<{ id: string; challenge_id: string; agent_id: string; superseded: boolean } | null> {
  return queryOne(
    db,
    `UPDATE results SET private_score = $3, private_reason = $4, breakdown = $5, private_state = 'done',
                        private_judged_at = now()
      WHERE submission_id = $1 AND run = $2 AND private_state = 'pending'
      RETURNING id, challenge_id, agent_id, (superseded_at IS NOT NULL) AS superseded`,
    [p.submissionId, p.run, p.privateScore, p.reason, p.breakdown],
  );
}

/**
 * Runs whose private pass has waited longer than `olderThanMs` since the public result (the
 * sweeper asks Temporal whether their workflow still runs; a lost one leaves them to be stored as 0).
 */
export async function listStalledPrivatePasses(
  db: Queryable,
  olderThanMs: number,
  limit: number,
): Promise<{ submission_id: string; run: number }[]> {
  const res = await db.query<{ submission_id: string; run: number }>(
    `SELECT submission_id, run FROM results
      WHERE private_state = 'pending'
        AND judged_at < now() - make_interval(secs => $1::double precision / 1000)
      ORDER BY judged_at LIMIT $2`,
    [olderThanMs, limit],
  );
  return res.rows;
}

/** Changes whenever a private pass of the challenge is stored or starts pending (the final board's cache key). */
export async function finalBoardMark(db: Queryable, challengeId: string): Promise<string> {
  const row = await queryOne<{ mark: string }>(
    db,
    `SELECT count(*) FILTER (WHERE private_state = 'pending') || ':' || count(*) FILTER (WHERE private_state = 'done')
            || ':' || coalesce(extract(epoch FROM max(private_judged_at))::text, '-') AS mark
       FROM results WHERE challenge_id = $1 AND superseded_at IS NULL`,
    [challengeId],
  );
  return row?.mark ?? '-';
}

/** How many current, counted results of the challenge still wait for their private pass. */
export async function countPendingPrivatePasses(db: Queryable, challengeId: string): Promise<number> {
  const row = await queryOne<{ n: number }>(
    db,
    `SELECT count(*)::int AS n FROM results
      WHERE challenge_id = $1 AND superseded_at IS NULL AND private_state = 'pending'
        AND result_state = 'scored' AND sandbox = false`,
    [challengeId],
  );
  return row?.n ?? 0;
}

export interface FinalCandidateRow {
  agent_id: string;
  agent_name: string;
  submission_id: string;
  final_score: string;
  private_score: string | null;
  submitted_at: Date;
  selected: boolean;
}

/**
 * Every live (non-sandbox) submission of a challenge with a current scored result: what the final
 * board chooses from (src/domain/contests/final-board.ts).
 */
export async function listFinalCandidates(db: Queryable, challengeId: string): Promise<FinalCandidateRow[]> {
  const res = await db.query<FinalCandidateRow>(
    `SELECT r.agent_id, a.name AS agent_name, r.submission_id, r.final_score::text AS final_score,
            r.private_score::text AS private_score, s.submitted_at, (s.selected_at IS NOT NULL) AS selected
       FROM results r
       JOIN submissions s ON s.id = r.submission_id
       JOIN agents a ON a.id = r.agent_id
      WHERE r.challenge_id = $1 AND r.superseded_at IS NULL AND r.result_state = 'scored' AND r.sandbox = false`,
    [challengeId],
  );
  return res.rows;
}

/** Whether any current result of the challenge was scored with private tests or criteria. */
export async function challengeHasPrivateScores(db: Queryable, challengeId: string): Promise<boolean> {
  const row = await queryOne<{ found: boolean }>(
    db,
    `SELECT EXISTS (SELECT 1 FROM results WHERE challenge_id = $1 AND superseded_at IS NULL AND private_state <> 'none') AS found`,
    [challengeId],
  );
  return row?.found ?? false;
}

export interface FrozenBoardRow {
  agent_id: string;
  agent_name: string;
  best_score: string;
  best_submission_id: string;
  best_reached_at: Date;
  submission_count: number;
  last_submitted_at: Date;
}

/**
 * The public board as it stood at `at` (the freeze): for each agent, its best result judged before
 * then and not yet superseded then, with the submissions it had made by then. Sandbox work never
 * counts (as on the live board).
 */
export async function boardAsOf(db: Queryable, challengeId: string, at: Date): Promise<FrozenBoardRow[]> {
  const res = await db.query<FrozenBoardRow>(
    `WITH best AS (
       SELECT DISTINCT ON (r.agent_id) r.agent_id, r.submission_id, r.final_score, r.submitted_at
         FROM results r
        WHERE r.challenge_id = $1 AND r.sandbox = false AND r.result_state = 'scored'
          AND r.judged_at < $2 AND (r.superseded_at IS NULL OR r.superseded_at >= $2)
        ORDER BY r.agent_id, r.final_score DESC, r.submitted_at, r.id
     ), stats AS (
       SELECT agent_id, count(*)::int AS n, max(submitted_at) AS last FROM submissions
        WHERE challenge_id = $1 AND sandbox = false AND submitted_at < $2
        GROUP BY agent_id
     )
     SELECT best.agent_id, a.name AS agent_name, best.final_score::text AS best_score,
            best.submission_id AS best_submission_id, date_trunc('milliseconds', best.submitted_at) AS best_reached_at,
            COALESCE(stats.n, 0) AS submission_count, COALESCE(stats.last, best.submitted_at) AS last_submitted_at
       FROM best JOIN agents a ON a.id = best.agent_id LEFT JOIN stats ON stats.agent_id = best.agent_id
      ORDER BY best.final_score DESC, best_reached_at, best.agent_id`,
    [challengeId, at],
  );
  return res.rows;
}

/**
 * Each agent's latest validated program in a `game` challenge (DESIGN "Games": a current scored
 * result of 100, the latest submitted first): agent id → submission id. Agents without one are absent.
 */
export async function latestValidatedSubmissions(
  db: Queryable,
  challengeId: string,
  agentIds: string[],
): Promise<Map<string, string>> {
  const res = await db.query<{ agent_id: string; submission_id: string }>(
    `SELECT DISTINCT ON (r.agent_id) r.agent_id, r.submission_id FROM results r
      WHERE r.challenge_id = $1 AND r.agent_id = ANY($2::uuid[]) AND r.superseded_at IS NULL
        AND r.result_state = 'scored' AND r.final_score = 100 AND NOT r.sandbox
      ORDER BY r.agent_id, r.submitted_at DESC, r.submission_id DESC`,
    [challengeId, agentIds],
  );
  return new Map(res.rows.map((row) => [row.agent_id, row.submission_id]));
}

/** The current result's stored outcome of each given submission (the history page's verdicts). */
export async function listCurrentOutcomes(
  db: Queryable,
  submissionIds: readonly string[],
): Promise<Map<string, JudgeOutcome>> {
  if (submissionIds.length === 0) return new Map();
  const res = await db.query<{ submission_id: string; breakdown: JudgeOutcome }>(
    `SELECT submission_id, breakdown FROM results
      WHERE submission_id = ANY($1::uuid[]) AND superseded_at IS NULL`,
    [submissionIds],
  );
  return new Map(res.rows.map((r) => [r.submission_id, r.breakdown]));
}
