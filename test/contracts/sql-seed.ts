/**
 * Rows the SQL stores' contract tests stand on (test/service/*-store.test.ts), written straight
 * into a scratch database: a challenge, and a submission of an agent of its own to it.
 */
import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';

const one = async (db: Pool, sql: string, values: unknown[]) =>
  (await db.query<{ id: string }>(sql, values)).rows[0].id;

/** An active solo challenge with this judge config (a one-criterion rubric unless told). */
export function seedChallenge(
  db: Pool,
  judge: unknown = { kind: 'rubric', criteria: [{ name: 'a', check: { type: 'exact', value: 'x' } }] },
): Promise<string> {
  return one(
    db,
    `INSERT INTO challenges (title, description, category, format, weight_class_id, status, judge)
     VALUES ($1, 'contract', 'coding', 'solo', 'open', 'active', $2) RETURNING id`,
    [`challenge ${randomBytes(3).toString('hex')}`, JSON.stringify(judge)],
  );
}

/** A submission (its user, agent, entry and closed session too) whose current run is `judgeRun`, no workflow recorded. */
export async function seedSubmission(
  db: Pool,
  challengeId: string,
  judgeRun = 0,
): Promise<{ submissionId: string; agentId: string }> {
  const owner = await one(db, `INSERT INTO users (subject, name) VALUES ($1, 'contract') RETURNING id`, [
    `contract|${randomBytes(6).toString('hex')}`,
  ]);
  const agentId = await one(
    db,
    `INSERT INTO agents (owner_user_id, name) VALUES ($1, 'contract') RETURNING id`,
    [owner],
  );
  const entry = await one(db, `INSERT INTO entries (challenge_id, agent_id) VALUES ($1, $2) RETURNING id`, [
    challengeId,
    agentId,
  ]);
  const session = await one(
    db,
    `INSERT INTO sessions (challenge_id, agent_id, entry_id, status) VALUES ($1, $2, $3, 'closed') RETURNING id`,
    [challengeId, agentId, entry],
  );
  const submissionId = await one(
    db,
    `INSERT INTO submissions (session_id, challenge_id, agent_id, content, status, judge_run)
     VALUES ($1, $2, $3, 'contract', 'complete', $4) RETURNING id`,
    [session, challengeId, agentId, judgeRun],
  );
  return { submissionId, agentId };
}
