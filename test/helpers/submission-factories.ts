import { randomBytes } from 'node:crypto';
import type { JudgeConfigInput } from '../../src/judging';
import { backingOff, eventually, newAgent, type TestAgent } from './factories';
import type { ApiResponse, TestServer } from './server';

/** Score 60 for content containing "42" (weight 3 of 5), +20 when ≤ 200 chars, +20 (hidden) when it starts with "The". */
export const RUBRIC_JUDGE: JudgeConfigInput = {
  kind: 'rubric',
  criteria: [
    { name: 'answer', weight: 3, check: { type: 'contains', value: '42' } },
    { name: 'concise', weight: 1, check: { type: 'length', max: 200 } },
    { name: 'style', weight: 1, hidden: true, check: { type: 'regex', pattern: '^The' } },
  ],
};

export interface ChallengeOptions {
  judge?: JudgeConfigInput;
  status?: 'draft' | 'active' | 'complete' | 'archived';
  title?: string;
  time_limit_minutes?: number | null;
  starts_at?: Date | null;
  ends_at?: Date | null;
  max_submissions_per_session?: number;
  max_submissions_per_day?: number | null;
  /** Default 'coding', shared by every file: a listing test filters by a category of its own. */
  category?: string;
}

/** Inserts a challenge row directly (active, rubric judge unless told). */
export async function newChallenge(server: TestServer, options: ChallengeOptions = {}): Promise<string> {
  const res = await server.deps.db.query<{ id: string }>(
    `INSERT INTO challenges (title, description, category, format, weight_class_id, status, time_limit_minutes, starts_at, ends_at,
                             judge, max_submissions_per_session, max_submissions_per_day)
     VALUES ($1, 'test challenge', $9, 'solo', 'open', $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
    [
      options.title ?? `challenge ${randomBytes(3).toString('hex')}`,
      options.status ?? 'active',
      options.time_limit_minutes ?? null,
      options.starts_at ?? null,
      options.ends_at ?? null,
      JSON.stringify(options.judge ?? RUBRIC_JUDGE),
      options.max_submissions_per_session ?? 10,
      options.max_submissions_per_day ?? null,
      options.category ?? 'coding',
    ],
  );
  return res.rows[0].id;
}

export const newIdempotencyKey = () => randomBytes(32).toString('hex');

export async function openSession(
  server: TestServer,
  auth: string,
  challengeId: string,
  query = '',
): Promise<ApiResponse> {
  return server.request('POST', `/api/v1/challenges/${challengeId}/sessions${query}`, { auth });
}

/** Opens a session and returns its id (throws unless 200/201). */
export async function sessionFor(server: TestServer, agent: TestAgent, challengeId: string): Promise<string> {
  const res = await openSession(server, agent.token, challengeId);
  if (res.status !== 201 && res.status !== 200)
    throw new Error(`open session failed: ${res.status} ${res.text}`);
  return res.body.data.session_id;
}

export async function submit(
  server: TestServer,
  auth: string,
  sessionId: string,
  body: unknown,
  idempotencyKey?: string,
): Promise<ApiResponse> {
  return server.request('POST', `/api/v1/sessions/${sessionId}/submissions`, {
    auth,
    body,
    headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : {},
  });
}

/**
 * A GET as a well-behaved client makes it: a 429 waits for its Retry-After and asks again. Polls
 * that share a token (several submissions of one agent judged at once) spend its read budget
 * faster the slower the machine judges, so the read after a poll must expect a 429.
 */
export async function getWithinLimits(
  server: TestServer,
  path: string,
  auth: string,
  attempts = 5,
): Promise<ApiResponse> {
  for (let attempt = 1; ; attempt++) {
    const res = await server.request('GET', path, { auth });
    if (res.status !== 429 || attempt === attempts) return res;
    await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get('retry-after') ?? 1) * 1000));
  }
}

/** Polls GET /submissions/{id} until it is complete or failed (or `statuses`). */
export async function waitForSubmission(
  server: TestServer,
  auth: string,
  submissionId: string,
  statuses: string[] = ['complete', 'failed'],
  timeoutMs = 30_000,
): Promise<any> {
  return eventually(
    async () => {
      const res = await getWithinLimits(server, `/api/v1/submissions/${submissionId}`, auth);
      return res.status === 200 && statuses.includes(res.body.data.submission_status)
        ? res.body.data
        : undefined;
    },
    timeoutMs,
    backingOff,
  );
}

/** Outbox events about one submission, oldest first. */
export async function outboxEventsFor(
  server: TestServer,
  submissionId: string,
): Promise<{ event_type: string; payload: any }[]> {
  const res = await server.deps.db.query(
    `SELECT event_type, payload FROM outbox_events WHERE payload->>'submission_id' = $1 ORDER BY created_at`,
    [submissionId],
  );
  return res.rows;
}

/**
 * A bout's usual play: submits `content` in the session, waits until the submission is judged
 * (its row complete), then closes the session.
 */
export async function submitJudgedAndClose(
  server: TestServer,
  token: string,
  sessionId: string,
  content: string,
): Promise<void> {
  const sub = await server.request('POST', `/api/v1/sessions/${sessionId}/submissions`, {
    auth: token,
    body: { content },
  });
  if (sub.status !== 201) throw new Error(`submit failed: ${sub.status} ${sub.text}`);
  await eventually(
    async () => {
      const s = await server.deps.db.query<{ status: string }>(
        'SELECT status FROM submissions WHERE id = $1',
        [sub.body.data.id],
      );
      return s.rows[0]?.status === 'complete' ? true : undefined;
    },
    60_000,
    250,
  );
  const closed = await server.request('DELETE', `/api/v1/sessions/${sessionId}`, { auth: token });
  if (closed.status !== 200) throw new Error(`closing the session failed: ${closed.status} ${closed.text}`);
}

/**
 * A new agent whose game program (one file) is validated by self-play (judged `complete`,
 * verdict accepted); answers the agent and its submission id.
 */
export async function validatedGamePlayer(
  server: TestServer,
  challengeId: string,
  file: { path: string; content: string },
): Promise<{ agent: TestAgent; submissionId: string }> {
  const agent = await newAgent(server);
  const sessionId = await sessionFor(server, agent, challengeId);
  const res = await submit(server, agent.token, sessionId, { content: file.path, files: [file] });
  expect(res.status).toBe(201);
  const judged = await waitForSubmission(
    server,
    agent.token,
    res.body.data.id,
    ['complete', 'failed'],
    600_000,
  );
  expect(judged.submission_status).toBe('complete');
  const breakdown = await getWithinLimits(
    server,
    `/api/v1/submissions/${res.body.data.id}/breakdown`,
    agent.token,
  );
  expect(breakdown.body.data.details).toMatchObject({ verdict: 'accepted' });
  return { agent, submissionId: res.body.data.id };
}
