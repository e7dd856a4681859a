import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { artifactHash, SUBMISSION_LIMITS } from '../../src/domain/submissions/rules';
import { markSubmissionStep } from '../../src/domain/submissions/judging';
import { advanceSubmissionStatus } from '../../src/db/queries/submissions';
import { SubmissionStatusKey } from '../../src/temporal-client/search-attributes';
import { eventually, newAdmin, newAgent, type TestAgent } from '../helpers/factories';
import {
  newChallenge,
  newIdempotencyKey,
  outboxEventsFor,
  RUBRIC_JUDGE,
  sessionFor,
  submit,
  waitForSubmission,
} from '../helpers/submission-factories';
import { expectError, startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** A loopback grader whose answers are scripted per call. */
async function startGrader(answer: (call: number, body: any) => { status: number; body?: unknown }) {
  let calls = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      calls += 1;
      const { status, body } = answer(calls, JSON.parse(raw || '{}'));
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body === undefined ? '' : JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/grade`,
    calls: () => calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('a rubric submission from session to leaderboard', () => {
  let agent: TestAgent;
  let challengeId: string;
  let submission: any;
  let detail: any;
  const body = {
    content: 'The answer is 42',
    files: [{ path: 'notes/answer.md', content: '# 42', language: 'markdown' }],
  };

  beforeAll(async () => {
    agent = await newAgent(server, { name: 'rubric-runner' });
    challengeId = await newChallenge(server);
    const sessionId = await sessionFor(server, agent, challengeId);
    const res = await submit(server, agent.token, sessionId, body);
    expect(res.status).toBe(201);
    submission = res.body.data;
    detail = await waitForSubmission(server, agent.token, submission.id);
  });

  test('201 with the spec fields; the artifact hash covers content and files', () => {
    expect(submission).toMatchObject({
      id: expect.any(String),
      challenge_id: challengeId,
      agent_id: agent.agentId,
      submission_status: 'received',
      artifact_hash: artifactHash(body.content, body.files),
      submitted_at: expect.any(String),
      created_at: expect.any(String),
      session_id: expect.any(String),
    });
    expect(submission.artifact_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  test('walks received → queued → judging → complete, each step an event', () => {
    expect(detail.submission_status).toBe('complete');
    expect(detail.events.map((e: any) => e.status)).toEqual(['received', 'queued', 'judging', 'complete']);
    for (const e of detail.events)
      expect(e).toMatchObject({ message: expect.any(String), created_at: expect.any(String) });
    expect(detail.events[3].data).toMatchObject({ final_score: 100, result_state: 'scored' });
    expect(detail.result).toMatchObject({ final_score: 100, result_state: 'scored' });
    expect(detail.content).toBe(body.content);
  });

  test('result by submission id and by result id', async () => {
    const bySubmission = await server.request('GET', `/api/v1/results/${submission.id}`, {
      auth: agent.token,
    });
    expect(bySubmission.status).toBe(200);
    expect(bySubmission.body.data).toMatchObject({
      submission_id: submission.id,
      challenge_id: challengeId,
      agent_id: agent.agentId,
      final_score: 100,
      result_state: 'scored',
      judge: 'rubric',
      current: true,
      judged_at: expect.any(String),
    });
    const byId = await server.request('GET', `/api/v1/results/${bySubmission.body.data.id}`, {
      auth: agent.token,
    });
    expect(byId.body.data).toEqual(bySubmission.body.data);
  });

  test('events: received, queued, completed (status text "completed"), result.finalized, breakdown.generated', async () => {
    const events = await outboxEventsFor(server, submission.id);
    const types = events.map((e) => e.event_type);
    for (const type of [
      'submission.received',
      'submission.queued',
      'submission.completed',
      'result.finalized',
      'breakdown.generated',
    ]) {
      expect(types.filter((t) => t === type)).toHaveLength(1);
    }
    expect(events.find((e) => e.event_type === 'submission.completed')!.payload).toEqual({
      submission_id: submission.id,
      submission_status: 'completed',
    });
    expect(events.find((e) => e.event_type === 'result.finalized')!.payload).toEqual({
      submission_id: submission.id,
      challenge_id: challengeId,
      final_score: 100,
      result_state: 'scored',
    });
  });

  test('the entry is judged and the leaderboard has the agent', async () => {
    const entry = await server.deps.db.query(
      'SELECT status, sandbox FROM entries WHERE challenge_id = $1 AND agent_id = $2',
      [challengeId, agent.agentId],
    );
    expect(entry.rows[0]).toEqual({ status: 'judged', sandbox: false });
    const board = await server.request('GET', `/api/v1/leaderboards/${challengeId}`);
    expect(board.status).toBe(200);
    expect(board.body.data).toEqual([
      {
        rank: 1,
        agent_id: agent.agentId,
        agent_name: 'rubric-runner',
        best_score: 100,
        best_submission_id: submission.id,
        submission_count: 1,
        last_submitted_at: submission.submitted_at,
      },
    ]);
  });

  test('search attributes follow the status, so operators can filter in the Web UI', async () => {
    const client = await server.deps.temporal();
    const handle = client.workflow.getHandle(`submission-${submission.id}`);
    // Upserted just after the status is stored, so poll rather than read once.
    await eventually(
      async () => (await handle.describe()).typedSearchAttributes.get(SubmissionStatusKey) === 'complete',
    );
    expect((await handle.describe()).typedSearchAttributes.get(SubmissionStatusKey)).toBe('complete');
  });

  test('breakdown views: competitor (owner), spectator (another agent), admin', async () => {
    const competitor = await server.request('GET', `/api/v1/submissions/${submission.id}/breakdown`, {
      auth: agent.token,
    });
    expect(competitor.status).toBe(200);
    expect(competitor.body.data).toMatchObject({
      audience: 'competitor',
      submission_id: submission.id,
      final_score: 100,
      summary: expect.any(String),
    });
    expect(competitor.body.data.criteria.map((c: any) => c.name)).toEqual(['answer', 'concise']); // the hidden one is only counted
    expect(competitor.body.data.hidden_summary).toEqual({ hidden_passed: 1, hidden_total: 1 });

    const ownerJwt = await server.request('GET', `/api/v1/submissions/${submission.id}/breakdown`, {
      auth: agent.user.jwt,
    });
    expect(ownerJwt.body.data.audience).toBe('competitor');

    const other = await newAgent(server);
    const spectator = await server.request('GET', `/api/v1/submissions/${submission.id}/breakdown`, {
      auth: other.token,
    });
    expect(spectator.status).toBe(200);
    expect(spectator.body.data.audience).toBe('spectator');
    expect(spectator.body.data.criteria).toEqual([
      { name: 'answer', score: 100 },
      { name: 'concise', score: 100 },
    ]);
    expect(spectator.body.data.summary).toBeUndefined();

    const admin = await newAdmin(server);
    const adminView = await server.request('GET', `/api/v1/submissions/${submission.id}/breakdown`, {
      auth: admin.jwt,
    });
    expect(adminView.body.data.audience).toBe('admin');
    expect(adminView.body.data.criteria.find((c: any) => c.name === 'style')).toMatchObject({
      hidden: true,
      passed: true,
    });
  });

  test('another agent cannot read the session or the submission (404), nor the result (403)', async () => {
    const other = await newAgent(server);
    expectError(
      await server.request('GET', `/api/v1/submissions/${submission.id}`, { auth: other.token }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await server.request('GET', `/api/v1/sessions/${submission.session_id}`, { auth: other.token }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await server.request('GET', `/api/v1/results/${submission.id}`, { auth: other.token }),
      403,
      'FORBIDDEN',
    );
    expectError(
      await server.request('GET', `/api/v1/submissions/${submission.id}`, { auth: other.user.jwt }),
      404,
      'NOT_FOUND',
    );
  });

  test('status only moves forward: replayed steps are no-ops', async () => {
    expect(await markSubmissionStep(server.deps.db, { submissionId: submission.id, run: 0 }, 'judging')).toBe(
      false,
    );
    expect(await advanceSubmissionStatus(server.deps.db, submission.id, 0, 'queued')).toBeNull();
    expect(await advanceSubmissionStatus(server.deps.db, submission.id, 0, 'failed')).toBeNull();
    const after = await server.request('GET', `/api/v1/submissions/${submission.id}`, { auth: agent.token });
    expect(after.body.data.submission_status).toBe('complete');
    expect(after.body.data.events).toHaveLength(4);
  });
});

describe('judges', () => {
  // Started first: exhausting the judge's retries takes ~8 s of backoff, checked at the end.
  let exhausted: { grader: Awaited<ReturnType<typeof startGrader>>; agent: TestAgent; submissionId: string };
  beforeAll(async () => {
    const grader = await startGrader(() => ({ status: 503, body: { error: 'down' } }));
    const agent = await newAgent(server);
    const challengeId = await newChallenge(server, {
      judge: { kind: 'http', url: grader.url, timeout_ms: 1000 },
    });
    const res = await submit(server, agent.token, await sessionFor(server, agent, challengeId), {
      content: 'nobody home',
    });
    exhausted = { grader, agent, submissionId: res.body.data.id };
  });
  afterAll(() => exhausted.grader.close());

  test('tests judge: submitted code runs against public and hidden tests', async () => {
    const agent = await newAgent(server);
    const challengeId = await newChallenge(server, {
      judge: {
        kind: 'tests',
        timeout_ms_per_test: 2000,
        tests: [
          { name: 'adds', export: 'add', args: [2, 3], expected: 5 },
          { name: 'hidden negative', export: 'add', args: [-2, -3], expected: -5, hidden: true },
          { name: 'wrong on purpose', export: 'add', args: [1, 1], expected: 3 },
        ],
      },
    });
    const sessionId = await sessionFor(server, agent, challengeId);
    const res = await submit(server, agent.token, sessionId, {
      content: 'my solution',
      files: [
        {
          path: 'src/index.ts',
          language: 'typescript',
          content: 'export function add(a: number, b: number): number { return a + b; }',
        },
      ],
    });
    expect(res.status).toBe(201);
    const done = await waitForSubmission(
      server,
      agent.token,
      res.body.data.id,
      ['complete', 'failed'],
      45_000,
    );
    expect(done.submission_status).toBe('complete');
    expect(done.result.final_score).toBeCloseTo(66.67, 1);
    const breakdown = await server.request('GET', `/api/v1/submissions/${res.body.data.id}/breakdown`, {
      auth: agent.token,
    });
    expect(breakdown.body.data.details.tests.map((t: any) => t.name)).toEqual(['adds', 'wrong on purpose']);
    expect(breakdown.body.data.hidden_summary).toEqual({ hidden_passed: 1, hidden_total: 1 });
    // The worker ran every test case behind the OS sandbox (bubblewrap), as it reports to operators.
    const admin = await newAdmin(server);
    const adminView = await server.request('GET', `/api/v1/submissions/${res.body.data.id}/breakdown`, {
      auth: admin.jwt,
    });
    expect(adminView.body.data.details.sandbox).toBe('bwrap');
    expect(breakdown.body.data.details.sandbox).toBeUndefined();
  });

  test('http judge: a grader failing twice is retried, then scores', async () => {
    const grader = await startGrader((call, body) =>
      call <= 2
        ? { status: 503, body: { error: 'busy' } }
        : { status: 200, body: { score: 73.5, feedback: `graded ${body.submission.content}` } },
    );
    try {
      const agent = await newAgent(server);
      const challengeId = await newChallenge(server, {
        judge: { kind: 'http', url: grader.url, timeout_ms: 2000 },
      });
      const res = await submit(server, agent.token, await sessionFor(server, agent, challengeId), {
        content: 'hello grader',
      });
      const done = await waitForSubmission(server, agent.token, res.body.data.id);
      expect(done.submission_status).toBe('complete');
      expect(done.result).toMatchObject({ final_score: 73.5, result_state: 'scored' });
      expect(grader.calls()).toBe(3);
    } finally {
      await grader.close();
    }
  });

  test('http judge: a grader answering 400 fails the submission with the reason (no retry), and it does not count against the quota', async () => {
    const grader = await startGrader(() => ({ status: 400, body: { error: 'bad request' } }));
    try {
      const agent = await newAgent(server);
      const challengeId = await newChallenge(server, {
        judge: { kind: 'http', url: grader.url },
        max_submissions_per_session: 1,
      });
      const sessionId = await sessionFor(server, agent, challengeId);
      const res = await submit(server, agent.token, sessionId, { content: 'x' });
      const done = await waitForSubmission(server, agent.token, res.body.data.id);
      expect(done.submission_status).toBe('failed');
      expect(done.failure_reason).toMatch(/grader answered 400/);
      expect(done.events.map((e: any) => e.status)).toEqual(['received', 'queued', 'judging', 'failed']);
      expect(grader.calls()).toBe(1);
      // The workflow upserts the search attribute just after the activity stores the status.
      const client = await server.deps.temporal();
      const handle = client.workflow.getHandle(`submission-${res.body.data.id}`);
      await eventually(
        async () => (await handle.describe()).typedSearchAttributes.get(SubmissionStatusKey) === 'failed',
      );
      const failed = (await outboxEventsFor(server, res.body.data.id)).find(
        (e) => e.event_type === 'submission.failed',
      );
      expect(failed!.payload).toMatchObject({
        submission_status: 'failed',
        reason: expect.stringMatching(/400/),
      });
      expectError(
        await server.request('GET', `/api/v1/submissions/${res.body.data.id}/breakdown`, {
          auth: agent.token,
        }),
        404,
        'BREAKDOWN_NOT_AVAILABLE',
      );
      // The failed judging does not use up the single allowed submission.
      const again = await submit(server, agent.token, sessionId, { content: 'y' });
      expect(again.status).toBe(201);
    } finally {
      await grader.close();
    }
  });

  test('an invalid stored judge config fails the submission with the reason (never stuck)', async () => {
    const agent = await newAgent(server);
    const challengeId = await newChallenge(server, { judge: { kind: 'rubric', criteria: [] } as never });
    const res = await submit(server, agent.token, await sessionFor(server, agent, challengeId), {
      content: 'x',
    });
    const done = await waitForSubmission(server, agent.token, res.body.data.id);
    expect(done.submission_status).toBe('failed');
    expect(done.failure_reason).toMatch(/invalid judge config/);
  });

  test('a grader that stays unavailable exhausts the retries: failed, with the reason', async () => {
    const done = await waitForSubmission(
      server,
      exhausted.agent.token,
      exhausted.submissionId,
      ['complete', 'failed'],
      40_000,
    );
    expect(done.submission_status).toBe('failed');
    expect(done.failure_reason).toMatch(/after 5 attempts: grader answered 503/);
    expect(exhausted.grader.calls()).toBe(5);
  });
});

describe('submission errors and quotas', () => {
  let agent: TestAgent;
  let sessionId: string;
  beforeAll(async () => {
    agent = await newAgent(server);
    sessionId = await sessionFor(server, agent, await newChallenge(server));
  });

  test.each([
    ['missing content', {}],
    ['content over 100000 characters', { content: 'x'.repeat(100_001) }],
    ['unknown field', { content: 'x', extra: true }],
    [
      'too many files',
      {
        content: 'x',
        files: Array.from({ length: SUBMISSION_LIMITS.maxFiles + 1 }, (_, i) => ({
          path: `f${i}.js`,
          content: '',
        })),
      },
    ],
    ['a .. path', { content: 'x', files: [{ path: 'src/../../etc/passwd', content: '' }] }],
    ['an absolute path', { content: 'x', files: [{ path: '/etc/passwd', content: '' }] }],
    [
      'a duplicate path',
      {
        content: 'x',
        files: [
          { path: 'a.js', content: '' },
          { path: 'a.js', content: '' },
        ],
      },
    ],
    [
      'over 1 MiB in total',
      {
        content: 'x',
        files: [
          { path: 'a.txt', content: 'y'.repeat(600_000) },
          { path: 'b.txt', content: 'y'.repeat(600_000) },
        ],
      },
    ],
  ])('%s is 400 VALIDATION_ERROR', async (_name, body) => {
    expectError(await submit(server, agent.token, sessionId, body), 400, 'VALIDATION_ERROR');
  });

  test('unknown session 404; missing scope 403; no credential 401', async () => {
    expectError(
      await submit(server, agent.token, '00000000-0000-4000-8000-000000000000', { content: 'x' }),
      404,
      'NOT_FOUND',
    );
    const readOnly = await newAgent(server, { scopes: ['submission:read'] });
    expectError(await submit(server, readOnly.token, sessionId, { content: 'x' }), 403, 'FORBIDDEN');
    expectError(
      await server.request('POST', `/api/v1/sessions/${sessionId}/submissions`, { body: { content: 'x' } }),
      401,
      'UNAUTHORIZED',
    );
  });

  test('per-session limit is 400 SUBMISSION_LIMIT_REACHED', async () => {
    const a = await newAgent(server);
    const s = await sessionFor(server, a, await newChallenge(server, { max_submissions_per_session: 2 }));
    expect((await submit(server, a.token, s, { content: '1' })).status).toBe(201);
    expect((await submit(server, a.token, s, { content: '2' })).status).toBe(201);
    expectError(await submit(server, a.token, s, { content: '3' }), 400, 'SUBMISSION_LIMIT_REACHED');
  });

  test('per-day limit spans sessions: 400 SUBMISSION_LIMIT_REACHED', async () => {
    const a = await newAgent(server);
    const challengeId = await newChallenge(server, { max_submissions_per_day: 1 });
    const first = await sessionFor(server, a, challengeId);
    expect((await submit(server, a.token, first, { content: '1' })).status).toBe(201);
    await server.request('DELETE', `/api/v1/sessions/${first}`, { auth: a.token });
    const second = await sessionFor(server, a, challengeId);
    expect(second).not.toBe(first);
    expectError(await submit(server, a.token, second, { content: '2' }), 400, 'SUBMISSION_LIMIT_REACHED');
  });

  test('closed and expired sessions are 400 SESSION_CLOSED', async () => {
    const a = await newAgent(server);
    const challengeId = await newChallenge(server);
    const s = await sessionFor(server, a, challengeId);
    await server.deps.db.query("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id = $1", [
      s,
    ]);
    expectError(await submit(server, a.token, s, { content: 'late' }), 400, 'SESSION_CLOSED');
    const row = await server.deps.db.query('SELECT status, close_reason FROM sessions WHERE id = $1', [s]);
    expect(row.rows[0]).toEqual({ status: 'closed', close_reason: 'expired' });
  });

  test('BREAKDOWN_NOT_AVAILABLE before judging', async () => {
    const a = await newAgent(server);
    const challengeId = await newChallenge(server);
    const s = await sessionFor(server, a, challengeId);
    // A received submission whose workflow is (marked) started elsewhere: never judged here.
    const row = await server.deps.db.query(
      `INSERT INTO submissions (session_id, challenge_id, agent_id, content, artifact_hash, workflow_started_at) VALUES ($1, $2, $3, 'x', 'h', now()) RETURNING id`,
      [s, challengeId, a.agentId],
    );
    expectError(
      await server.request('GET', `/api/v1/submissions/${row.rows[0].id}/breakdown`, { auth: a.token }),
      404,
      'BREAKDOWN_NOT_AVAILABLE',
    );
    expectError(
      await server.request('GET', `/api/v1/submissions/00000000-0000-4000-8000-000000000000/breakdown`, {
        auth: a.token,
      }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await server.request('GET', `/api/v1/results/${row.rows[0].id}`, { auth: a.token }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('idempotency', () => {
  test('same key → 200 with the same submission; another body → 409 IDEMPOTENCY_KEY_REUSED', async () => {
    const agent = await newAgent(server);
    const sessionId = await sessionFor(server, agent, await newChallenge(server));
    const key = newIdempotencyKey();
    const first = await submit(server, agent.token, sessionId, { content: 'once' }, key);
    expect(first.status).toBe(201);
    const replay = await submit(server, agent.token, sessionId, { content: 'once' }, key);
    expect(replay.status).toBe(200);
    expect(replay.body.data.id).toBe(first.body.data.id);
    expectError(
      await submit(server, agent.token, sessionId, { content: 'twice' }, key),
      409,
      'IDEMPOTENCY_KEY_REUSED',
    );

    // The key is on the row too: even without the idempotency record (a crash before it was
    // written), the same request finds the same submission.
    await server.deps.db.query('DELETE FROM idempotency_keys WHERE key = $1', [key]);
    const afterCrash = await submit(server, agent.token, sessionId, { content: 'once' }, key);
    expect(afterCrash.status).toBe(200);
    expect(afterCrash.body.data.id).toBe(first.body.data.id);
    const rows = await server.deps.db.query(
      'SELECT count(*)::int AS n FROM submissions WHERE idempotency_key = $1',
      [key],
    );
    expect(rows.rows[0].n).toBe(1);
  });

  test('30 concurrent POSTs with one key create exactly one submission', async () => {
    const agent = await newAgent(server);
    const sessionId = await sessionFor(server, agent, await newChallenge(server));
    const key = newIdempotencyKey();
    const responses = await Promise.all(
      Array.from({ length: 30 }, () => submit(server, agent.token, sessionId, { content: 'race' }, key)),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(29);
    expect(new Set(responses.map((r) => r.body.data.id)).size).toBe(1);
    const rows = await server.deps.db.query(
      'SELECT count(*)::int AS n FROM submissions WHERE session_id = $1',
      [sessionId],
    );
    expect(rows.rows[0].n).toBe(1);
  });
});

describe('no lost submission', () => {
  test('a submission whose workflow never started (API died after the commit) is started by the sweeper and judged', async () => {
    const agent = await newAgent(server);
    const challengeId = await newChallenge(server);
    const sessionId = await sessionFor(server, agent, challengeId);
    const db = server.deps.db;
    const inserted = await db.query(
      `INSERT INTO submissions (session_id, challenge_id, agent_id, content, artifact_hash) VALUES ($1, $2, $3, 'The answer: 42', 'h') RETURNING id`,
      [sessionId, challengeId, agent.agentId],
    );
    const id = inserted.rows[0].id;
    await db.query(
      `INSERT INTO submission_events (submission_id, status, message) VALUES ($1, 'received', 'submission received')`,
      [id],
    );
    const done = await waitForSubmission(server, agent.token, id, ['complete'], 30_000);
    expect(done.result.final_score).toBe(100);
    const row = await db.query('SELECT workflow_started_at FROM submissions WHERE id = $1', [id]);
    expect(row.rows[0].workflow_started_at).not.toBeNull();
  });
});

describe('never stuck', () => {
  test('a run whose workflow is gone while the submission is still judging is marked failed by the sweeper', async () => {
    const agent = await newAgent(server);
    const challengeId = await newChallenge(server);
    const sessionId = await sessionFor(server, agent, challengeId);
    // Accepted and "started" an hour ago, stuck in judging, and Temporal knows no such workflow.
    const inserted = await server.deps.db.query(
      `INSERT INTO submissions (session_id, challenge_id, agent_id, content, artifact_hash, status, workflow_started_at, updated_at)
       VALUES ($1, $2, $3, 'x', 'h', 'judging', now() - interval '1 hour', now() - interval '1 hour') RETURNING id`,
      [sessionId, challengeId, agent.agentId],
    );
    const done = await waitForSubmission(server, agent.token, inserted.rows[0].id, ['failed'], 20_000);
    expect(done.failure_reason).toBe('judging did not finish: the workflow no longer exists');
    const failed = (await outboxEventsFor(server, inserted.rows[0].id)).filter(
      (e) => e.event_type === 'submission.failed',
    );
    expect(failed).toHaveLength(1);
    // The Temporal UI's filter finds it too: a marker run under the submission's workflow id.
    await expectFailedInVisibility(
      inserted.rows[0].id,
      'judging did not finish: the workflow no longer exists',
    );
  });

  test('a run whose workflow an operator terminated is failed, and SubmissionStatus = "failed" finds it', async () => {
    // A grader that never answers keeps the run's workflow judging until it is terminated.
    const hanging = http.createServer(() => {});
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    try {
      const agent = await newAgent(server);
      const challengeId = await newChallenge(server, {
        judge: {
          kind: 'http',
          url: `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/`,
          timeout_ms: 120_000,
        },
      });
      const res = await submit(server, agent.token, await sessionFor(server, agent, challengeId), {
        content: 'x',
      });
      expect(res.status).toBe(201);
      const id = res.body.data.id;
      await waitForSubmission(server, agent.token, id, ['judging']);
      const client = await server.deps.temporal();
      await client.workflow.getHandle(`submission-${id}`).terminate('operator stopped it');
      // The sweeper looks at runs idle for SUBMISSION_SWEEP_AFTER_MS; make this one old at once.
      await server.deps.db.query(
        `UPDATE submissions SET updated_at = now() - interval '1 hour' WHERE id = $1`,
        [id],
      );
      const done = await waitForSubmission(server, agent.token, id, ['failed'], 20_000);
      expect(done.failure_reason).toBe('judging did not finish: the workflow is terminated');
      await expectFailedInVisibility(id, 'judging did not finish: the workflow is terminated');
    } finally {
      hanging.closeAllConnections();
      await new Promise<void>((resolve) => hanging.close(() => resolve()));
    }
  });
});

async function expectFailedInVisibility(submissionId: string, reason: string) {
  const client = await server.deps.temporal();
  const handle = client.workflow.getHandle(`submission-${submissionId}`);
  const marker = await eventually(async () => {
    const d = await handle.describe();
    return d.type === 'submissionOutcomeWorkflow' && d.status.name === 'COMPLETED' ? d : undefined;
  });
  expect(marker.typedSearchAttributes.get(SubmissionStatusKey)).toBe('failed');
  expect(await handle.result()).toEqual({ submissionId, run: 0, status: 'failed', reason });
  // Visibility is eventually consistent: wait for the list query an operator would type.
  const query = `WorkflowId = 'submission-${submissionId}' AND SubmissionStatus = 'failed'`;
  const found = await eventually(async () => {
    const ids: string[] = [];
    for await (const w of client.workflow.list({ query })) ids.push(w.workflowId);
    return ids.length > 0 ? ids : undefined;
  });
  expect(found).toEqual([`submission-${submissionId}`]);
}

describe('rejudge', () => {
  test('a new run supersedes the result, the leaderboard follows, result.finalized is emitted again', async () => {
    const agent = await newAgent(server);
    const admin = await newAdmin(server);
    const challengeId = await newChallenge(server);
    const res = await submit(server, agent.token, await sessionFor(server, agent, challengeId), {
      content: 'The answer is 42',
    });
    const id = res.body.data.id;
    const first = await waitForSubmission(server, agent.token, id);
    expect(first.result.final_score).toBe(100);

    expectError(
      await server.request('POST', `/api/v1/admin/submissions/${id}/rejudge`, { auth: agent.user.jwt }),
      403,
      'FORBIDDEN',
    );
    expectError(
      await server.request('POST', `/api/v1/admin/submissions/${id}/rejudge`, { auth: agent.token }),
      403,
      'FORBIDDEN',
    );

    // The operator fixes the judge: the answer is now 43.
    const judge = JSON.parse(JSON.stringify(RUBRIC_JUDGE));
    judge.criteria[0].check.value = '43';
    await server.deps.db.query('UPDATE challenges SET judge = $2 WHERE id = $1', [
      challengeId,
      JSON.stringify(judge),
    ]);

    const rejudge = await server.request('POST', `/api/v1/admin/submissions/${id}/rejudge`, {
      auth: admin.jwt,
    });
    expect(rejudge.status).toBe(202);
    expect(rejudge.body.data).toMatchObject({
      submission_id: id,
      run: 1,
      workflow_id: `submission-${id}-rejudge-1`,
      submission_status: 'queued',
    });

    const second = await eventually(async () => {
      const d = await server.request('GET', `/api/v1/submissions/${id}`, { auth: agent.token });
      return d.body.data.submission_status === 'complete' && d.body.data.result.final_score === 40
        ? d.body.data
        : undefined;
    });
    expect(second.rejudge_count).toBe(1);
    expect(second.events.map((e: any) => `${e.run}:${e.status}`)).toEqual([
      '0:received',
      '0:queued',
      '0:judging',
      '0:complete',
      '1:queued',
      '1:judging',
      '1:complete',
    ]);

    const old = await server.request('GET', `/api/v1/results/${first.result.id}`, { auth: agent.token });
    expect(old.body.data).toMatchObject({
      final_score: 100,
      current: false,
      superseded_at: expect.any(String),
    });
    const current = await server.request('GET', `/api/v1/results/${id}`, { auth: agent.token });
    expect(current.body.data).toMatchObject({ final_score: 40, current: true, run: 1 });

    const board = await server.request('GET', `/api/v1/leaderboards/${challengeId}`);
    expect(board.body.data[0]).toMatchObject({ agent_id: agent.agentId, best_score: 40 });
    const finalized = (await outboxEventsFor(server, id))
      .filter((e) => e.event_type === 'result.finalized')
      .map((e) => e.payload.final_score);
    expect(finalized.sort()).toEqual([100, 40].sort());
  });

  test('rejudging a submission still being judged is 409; unknown is 404', async () => {
    const admin = await newAdmin(server);
    const agent = await newAgent(server);
    const challengeId = await newChallenge(server);
    const s = await sessionFor(server, agent, challengeId);
    const row = await server.deps.db.query(
      `INSERT INTO submissions (session_id, challenge_id, agent_id, content, artifact_hash, status, workflow_started_at) VALUES ($1, $2, $3, 'x', 'h', 'judging', now()) RETURNING id`,
      [s, challengeId, agent.agentId],
    );
    expectError(
      await server.request('POST', `/api/v1/admin/submissions/${row.rows[0].id}/rejudge`, {
        auth: admin.jwt,
      }),
      409,
      'CONFLICT',
    );
    expectError(
      await server.request('POST', `/api/v1/admin/submissions/00000000-0000-4000-8000-000000000000/rejudge`, {
        auth: admin.jwt,
      }),
      404,
      'NOT_FOUND',
    );
  });
});
