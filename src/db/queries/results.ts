import type { JudgeOutcome, ResultState } from '../../judging';
import type { Queryable } from '../pool';
import { queryOne } from '../pool';

export interface ResultRow {
  id: string;
  submission_id: string;
  challenge_id: string;
  agent_id: string;
  run: number;
  /** numeric(5,2), parsed to a number by the queries below. */
  final_score: number;
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

type RawResult = Omit<ResultRow, 'final_score'> & { final_score: string };
const parse = (row: RawResult | null): ResultRow | null =>
  row ? { ...row, final_score: Number(row.final_score) } : null;

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
  resultState: ResultState;
  judge: string;
  summary: string;
  breakdown: JudgeOutcome;
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
    `INSERT INTO results (submission_id, challenge_id, agent_id, run, final_score, result_state, judge, summary, breakdown, sandbox, submitted_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id, judged_at`,
    [
      r.submissionId,
      r.challengeId,
      r.agentId,
      r.run,
      r.finalScore,
      r.resultState,
      r.judge,
      r.summary,
      JSON.stringify(r.breakdown),
      r.sandbox,
      r.submittedAt,
    ],
  );
  return row!;
}
