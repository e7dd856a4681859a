import { newAdmin, newAgent, type TestAgent } from '../helpers/factories';
import { newChallenge, sessionFor, submit, waitForSubmission } from '../helpers/submission-factories';
import { expectError, startTestServer, type ApiResponse, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const history = (auth: string, query = '') => server.request('GET', `/api/v1/submissions${query}`, { auth });

describe('GET /api/v1/submissions (submission history)', () => {
  let alice: TestAgent;
  let aliceSecond: TestAgent;
  let bob: TestAgent;
  let challengeA: string;
  let challengeB: string;
  /** Alice's first agent's submission ids, in the order they were made. */
  const made: string[] = [];
  let secondAgentSubmission: string;

  beforeAll(async () => {
    alice = await newAgent(server, { name: 'alice-bot' });
    aliceSecond = await newAgent(server, { user: alice.user, name: 'alice-bot-2' });
    bob = await newAgent(server, { name: 'bob-bot' });
    challengeA = await newChallenge(server, { title: 'History A' });
    challengeB = await newChallenge(server, { title: 'History B' });
    const sessionA = await sessionFor(server, alice, challengeA);
    const sessionB = await sessionFor(server, alice, challengeB);
    // 42 scores 100 on the rubric; "nope" scores 20: both complete.
    for (const [session, content] of [
      [sessionA, 'The answer is 42'],
      [sessionA, 'nope'],
      [sessionB, 'The answer is 42'],
      [sessionA, 'The 42'],
      [sessionB, 'nope'],
    ] as const) {
      const res = await submit(server, alice.token, session, { content });
      expect(res.status).toBe(201);
      made.push(res.body.data.id);
    }
    const second = await submit(
      server,
      aliceSecond.token,
      await sessionFor(server, aliceSecond, challengeA),
      {
        content: '42',
      },
    );
    secondAgentSubmission = second.body.data.id;
    const bobs = await submit(server, bob.token, await sessionFor(server, bob, challengeA), {
      content: '42',
    });
    expect(bobs.status).toBe(201);
    for (const id of made) await waitForSubmission(server, alice.token, id);
  });

  it('lists an API token’s own submissions newest first, with score and links once judged', async () => {
    const res = await history(alice.token);
    expect(res.status).toBe(200);
    expect(res.body.data.map((s: { id: string; agent_id: string }) => s.id)).toEqual([...made].reverse());
    expect(res.body.pagination).toEqual({ limit: 20, has_more: false, next_cursor: null });
    const first = res.body.data.find((s: { id: string; agent_id: string }) => s.id === made[0]);
    expect(first).toMatchObject({
      agent_id: alice.agentId,
      agent_name: 'alice-bot',
      challenge_id: challengeA,
      challenge_title: 'History A',
      submission_status: 'complete',
      result: { final_score: 100, result_state: 'scored' },
      links: {
        self: `/api/v1/submissions/${made[0]}`,
        result: `/api/v1/results/${made[0]}`,
        breakdown: `/api/v1/submissions/${made[0]}/breakdown`,
      },
    });
    // The links lead somewhere the caller may read.
    const breakdown = await server.request('GET', first.links.breakdown, { auth: alice.token });
    expect(breakdown.status).toBe(200);
    expect(breakdown.body.data.submission_id).toBe(made[0]);
  });

  it('pages with a keyset cursor: every submission exactly once, in order', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: ApiResponse = await history(alice.token, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data.map((s: { id: string; agent_id: string }) => s.id));
      cursor = res.body.pagination.next_cursor;
      expect(res.body.pagination.has_more).toBe(cursor !== null);
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...made].reverse());
  });

  it('filters by challenge and by status', async () => {
    const onB = await history(alice.token, `?challenge_id=${challengeB}`);
    expect(onB.body.data.map((s: { id: string; agent_id: string }) => s.id)).toEqual([made[4], made[2]]);
    const complete = await history(alice.token, '?status=complete');
    expect(complete.body.data).toHaveLength(5);
    const queued = await history(alice.token, '?status=queued');
    expect(queued.status).toBe(200);
    expect(queued.body.data).toEqual([]);
  });

  it('a session JWT sees every agent of its user; agent_id narrows it', async () => {
    const all = await history(alice.user.jwt);
    const ids = all.body.data.map((s: { id: string; agent_id: string }) => s.id);
    expect(ids).toEqual(expect.arrayContaining([...made, secondAgentSubmission]));
    expect(ids).toHaveLength(6);
    expect(ids[0]).toBe(secondAgentSubmission);
    const one = await history(alice.user.jwt, `?agent_id=${aliceSecond.agentId}`);
    expect(one.body.data.map((s: { id: string; agent_id: string }) => s.id)).toEqual([secondAgentSubmission]);
  });

  it("another owner's agent is 404, for tokens and session JWTs alike; an operator may name it", async () => {
    expectError(await history(bob.token, `?agent_id=${alice.agentId}`), 404, 'NOT_FOUND');
    expectError(await history(bob.user.jwt, `?agent_id=${alice.agentId}`), 404, 'NOT_FOUND');
    // A token acts for one agent, even another of its own user's.
    expectError(await history(alice.token, `?agent_id=${aliceSecond.agentId}`), 404, 'NOT_FOUND');
    const bobs = await history(bob.token);
    expect(bobs.body.data.every((s: { id: string; agent_id: string }) => s.agent_id === bob.agentId)).toBe(
      true,
    );
    const admin = await newAdmin(server);
    const asOperator = await history(admin.jwt, `?agent_id=${alice.agentId}`);
    expect(asOperator.status).toBe(200);
    expect(asOperator.body.data).toHaveLength(5);
  });

  it('needs submission:read and a credential', async () => {
    const narrow = await newAgent(server, { scopes: ['challenge:read'] });
    expectError(await history(narrow.token), 403, 'FORBIDDEN');
    const anonymous = await server.request('GET', '/api/v1/submissions');
    expectError(anonymous, 401, 'UNAUTHORIZED');
  });

  it('live and sandbox stay apart: a sandbox token lists only sandbox submissions', async () => {
    const sandboxToken = await server.request('POST', '/api/v1/auth/tokens', {
      auth: alice.user.jwt,
      body: { name: 'sandbox', scopes: ['submission:read'], agent_id: alice.agentId, sandbox: true },
    });
    expect(sandboxToken.status).toBe(201);
    const res = await history(sandboxToken.body.data.token);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });

  it.each([
    ['?limit=0', 'limit'],
    ['?limit=101', 'limit'],
    ['?status=done', 'status'],
    ['?agent_id=not-a-uuid', 'agent_id'],
    ['?challenge_id=1', 'challenge_id'],
    ['?cursor=%25%25', 'cursor'],
    [
      `?cursor=${Buffer.from(JSON.stringify(['2026-13-45T99:00:00.000000Z', '00000000-0000-0000-0000-000000000000'])).toString('base64url')}`,
      'cursor',
    ],
    [`?cursor=${Buffer.from('["x"]').toString('base64url')}`, 'cursor'],
    ['?colour=red', 'colour'],
  ])('bad input %s is a 400 naming %s', async (query, field) => {
    const res = await history(alice.token, query);
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.message).toContain(field);
  });

  it('POST /api/v1/submissions keeps answering 410', async () => {
    const res = await server.request('POST', '/api/v1/submissions', {
      auth: alice.token,
      body: { content: 'x' },
    });
    expectError(res, 410, 'GONE');
  });
});
