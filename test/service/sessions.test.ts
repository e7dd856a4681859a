import { sweepOnce } from '../../src/domain/submissions/sweeper';
import { newAgent, newUser } from '../helpers/factories';
import {
  newChallenge,
  newIdempotencyKey,
  openSession,
  sessionFor,
  submit,
} from '../helpers/submission-factories';
import { expectError, startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const minutes = (n: number) => n * 60_000;

describe('opening sessions', () => {
  test('201 new → 200 existing (same session); entry created; session.created emitted', async () => {
    const agent = await newAgent(server);
    const challengeId = await newChallenge(server, { time_limit_minutes: 30 });
    const first = await openSession(server, agent.token, challengeId);
    expect(first.status).toBe(201);
    const session = first.body.data;
    expect(session).toMatchObject({
      session_id: expect.any(String),
      existing: false,
      challenge_id: challengeId,
      agent_id: agent.agentId,
      status: 'open',
      open: true,
      sandbox: false,
      version_snapshot: {
        judge_kind: 'rubric',
        judge_hash: expect.stringMatching(/^[0-9a-f]{16}$/),
        challenge_updated_at: expect.any(String),
      },
    });
    const ttl = new Date(session.expires_at).getTime() - new Date(session.created_at).getTime();
    expect(Math.abs(ttl - minutes(30))).toBeLessThan(2000);

    const again = await openSession(server, agent.token, challengeId);
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ session_id: session.session_id, existing: true });

    const entry = await server.deps.db.query(
      'SELECT id, status, sandbox FROM entries WHERE challenge_id = $1 AND agent_id = $2',
      [challengeId, agent.agentId],
    );
    expect(entry.rows[0]).toMatchObject({ id: session.entry_id, status: 'active', sandbox: false });
    const events = await server.deps.db.query(
      `SELECT payload FROM outbox_events WHERE event_type = 'session.created' AND payload->>'session_id' = $1`,
      [session.session_id],
    );
    expect(events.rows).toEqual([
      {
        payload: {
          session_id: session.session_id,
          challenge_id: challengeId,
          agent_id: agent.agentId,
          expires_at: session.expires_at,
        },
      },
    ]);
  });

  test('20 concurrent opens yield one open session', async () => {
    const agent = await newAgent(server);
    const challengeId = await newChallenge(server);
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => openSession(server, agent.token, challengeId)),
    );
    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    expect(responses.filter((r) => r.status === 200)).toHaveLength(19);
    expect(new Set(responses.map((r) => r.body.data.session_id)).size).toBe(1);
    const rows = await server.deps.db.query(
      'SELECT count(*)::int AS n FROM sessions WHERE challenge_id = $1',
      [challengeId],
    );
    expect(rows.rows[0].n).toBe(1);
  });

  test('expires_at is capped by ends_at, and null without time limit or end', async () => {
    const agent = await newAgent(server);
    const endsAt = new Date(Date.now() + minutes(5));
    const capped = await openSession(
      server,
      agent.token,
      await newChallenge(server, { time_limit_minutes: 60, ends_at: endsAt }),
    );
    expect(capped.body.data.expires_at).toBe(endsAt.toISOString());
    const open = await openSession(server, agent.token, await newChallenge(server));
    expect(open.body.data.expires_at).toBeNull();
  });

  test.each([
    ['a draft (or quarantined) challenge', { status: 'draft' as const }],
    ['a complete challenge', { status: 'complete' as const }],
    ['an archived challenge', { status: 'archived' as const }],
    ['a challenge not started yet', { starts_at: new Date(Date.now() + minutes(60)) }],
    [
      'an ended challenge',
      { starts_at: new Date(Date.now() - minutes(120)), ends_at: new Date(Date.now() - minutes(60)) },
    ],
  ])('%s is 400 CHALLENGE_NOT_ENTERABLE', async (_name, options) => {
    const agent = await newAgent(server);
    expectError(
      await openSession(server, agent.token, await newChallenge(server, options)),
      400,
      'CHALLENGE_NOT_ENTERABLE',
    );
  });

  test('unknown challenge 404; missing scope 403; no credential 401', async () => {
    const agent = await newAgent(server);
    expectError(
      await openSession(server, agent.token, '00000000-0000-4000-8000-000000000000'),
      404,
      'NOT_FOUND',
    );
    const readOnly = await newAgent(server, { scopes: ['submission:read'] });
    expectError(await openSession(server, readOnly.token, await newChallenge(server)), 403, 'FORBIDDEN');
    expectError(
      await server.request('POST', `/api/v1/challenges/${await newChallenge(server)}/sessions`),
      401,
      'UNAUTHORIZED',
    );
  });

  test('JWT callers with several agents pass ?agent_id=', async () => {
    const user = await newUser(server);
    const a = await newAgent(server, { user });
    const b = await newAgent(server, { user });
    const challengeId = await newChallenge(server);
    expectError(await openSession(server, user.jwt, challengeId), 400, 'VALIDATION_ERROR');
    const forB = await openSession(server, user.jwt, challengeId, `?agent_id=${b.agentId}`);
    expect(forB.status).toBe(201);
    expect(forB.body.data.agent_id).toBe(b.agentId);
    const stranger = await newAgent(server);
    expectError(
      await openSession(server, user.jwt, challengeId, `?agent_id=${stranger.agentId}`),
      404,
      'NOT_FOUND',
    );
    // A token acts for its own agent only.
    expectError(await openSession(server, a.token, challengeId, `?agent_id=${b.agentId}`), 403, 'FORBIDDEN');
  });

  test('a sandbox token opens a sandbox session and entry', async () => {
    const agent = await newAgent(server, { sandbox: true });
    const challengeId = await newChallenge(server);
    const res = await openSession(server, agent.token, challengeId);
    expect(res.body.data.sandbox).toBe(true);
    const entry = await server.deps.db.query(
      'SELECT sandbox FROM entries WHERE challenge_id = $1 AND agent_id = $2',
      [challengeId, agent.agentId],
    );
    expect(entry.rows[0].sandbox).toBe(true);
  });

  test('Idempotency-Key replays the original outcome', async () => {
    const agent = await newAgent(server);
    const challengeId = await newChallenge(server);
    const key = newIdempotencyKey();
    const headers = { 'idempotency-key': key };
    const first = await server.request('POST', `/api/v1/challenges/${challengeId}/sessions`, {
      auth: agent.token,
      headers,
    });
    const replay = await server.request('POST', `/api/v1/challenges/${challengeId}/sessions`, {
      auth: agent.token,
      headers,
    });
    expect(first.status).toBe(201);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data.session_id).toBe(first.body.data.session_id);
  });
});

describe('reading and closing sessions', () => {
  test('GET: session, challenge, entry, submissions and quota; only for the owner', async () => {
    const agent = await newAgent(server);
    const challengeId = await newChallenge(server, { max_submissions_per_session: 3 });
    const sessionId = await sessionFor(server, agent, challengeId);
    const sub = await submit(server, agent.token, sessionId, { content: 'The answer is 42' });
    const res = await server.request('GET', `/api/v1/sessions/${sessionId}`, { auth: agent.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      session_id: sessionId,
      status: 'open',
      open: true,
      challenge: { id: challengeId, status: 'active' },
      // Submitted, or already judged: a rubric judge can finish before this read.
      entry: {
        challenge_id: challengeId,
        agent_id: agent.agentId,
        status: expect.stringMatching(/^(submitted|judged)$/),
      },
      submissions: [{ id: sub.body.data.id }],
      limits: { max_submissions_per_session: 3, submissions_counted: 1, submissions_remaining: 2 },
    });
    expect(res.body.data.challenge.judge).toBeUndefined();
    expect(
      (await server.request('GET', `/api/v1/sessions/${sessionId}`, { auth: agent.user.jwt })).status,
    ).toBe(200);
    const other = await newAgent(server);
    expectError(
      await server.request('GET', `/api/v1/sessions/${sessionId}`, { auth: other.token }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await server.request('GET', `/api/v1/sessions/${sessionId}`, { auth: other.user.jwt }),
      404,
      'NOT_FOUND',
    );
  });

  test('DELETE closes the session; submitting is then 400 SESSION_CLOSED; a new open gives a new session', async () => {
    const agent = await newAgent(server);
    const challengeId = await newChallenge(server);
    const sessionId = await sessionFor(server, agent, challengeId);
    const other = await newAgent(server);
    expectError(
      await server.request('DELETE', `/api/v1/sessions/${sessionId}`, { auth: other.token }),
      404,
      'NOT_FOUND',
    );
    const closed = await server.request('DELETE', `/api/v1/sessions/${sessionId}`, { auth: agent.token });
    expect(closed.status).toBe(200);
    expect(closed.body.data).toMatchObject({
      status: 'closed',
      open: false,
      close_reason: 'closed_by_caller',
      closed_at: expect.any(String),
    });
    expect(
      (await server.request('DELETE', `/api/v1/sessions/${sessionId}`, { auth: agent.token })).body.data
        .status,
    ).toBe('closed');
    expectError(await submit(server, agent.token, sessionId, { content: 'x' }), 400, 'SESSION_CLOSED');
    const fresh = await openSession(server, agent.token, challengeId);
    expect(fresh.status).toBe(201);
    expect(fresh.body.data.session_id).not.toBe(sessionId);
  });

  test('expiry closes lazily on read, and the sweeper closes durably without any read', async () => {
    const agent = await newAgent(server);
    const lazy = await sessionFor(server, agent, await newChallenge(server, { time_limit_minutes: 10 }));
    await server.deps.db.query("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id = $1", [
      lazy,
    ]);
    const read = await server.request('GET', `/api/v1/sessions/${lazy}`, { auth: agent.token });
    expect(read.body.data).toMatchObject({
      status: 'closed',
      close_reason: 'expired',
      limits: { submissions_remaining: 0 },
    });

    const swept = await sessionFor(server, agent, await newChallenge(server, { time_limit_minutes: 10 }));
    await server.deps.db.query("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id = $1", [
      swept,
    ]);
    // One pass of the sweeper, as the worker runs it every second (that the worker runs it:
    // test/system/submissions.test.ts, "…is started by the sweeper and judged").
    await sweepOnce(server.deps);
    const row = await server.deps.db.query('SELECT status, close_reason FROM sessions WHERE id = $1', [
      swept,
    ]);
    expect(row.rows[0]).toEqual({ status: 'closed', close_reason: 'expired' });
  });

  test('a challenge that stops being active closes its sessions', async () => {
    const agent = await newAgent(server);
    const challengeId = await newChallenge(server);
    const sessionId = await sessionFor(server, agent, challengeId);
    await server.deps.db.query("UPDATE challenges SET status = 'complete' WHERE id = $1", [challengeId]);
    expectError(await submit(server, agent.token, sessionId, { content: 'x' }), 400, 'SESSION_CLOSED');
    const row = await server.deps.db.query('SELECT status, close_reason FROM sessions WHERE id = $1', [
      sessionId,
    ]);
    expect(row.rows[0]).toEqual({ status: 'closed', close_reason: 'challenge_inactive' });
  });
});
