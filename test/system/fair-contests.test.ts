/**
 * Fair contests over HTTP (DESIGN, "Fair contests (solo formats)"; issue 32): private criteria
 * leave no trace while the challenge runs, the final board ranks selected submissions by their
 * private score, the freeze holds the public board, clarifications keep their audience.
 */
import { createActive, inSeconds } from '../helpers/challenge-factories';
import { eventually, newAgent, type TestAgent, type TestUser } from '../helpers/factories';
import { getWithinLimits, sessionFor, submit, waitForSubmission } from '../helpers/submission-factories';
import { expectError, type TestServer } from '../helpers/server';
import { startServerAndAdmin } from '../helpers/server-and-admin';
import { signInThroughEmbeddedProvider, webClient, type WebClient } from '../helpers/web-session';

const OPERATOR = `ops|fair-${Date.now().toString(36)}`;
let server: TestServer;
let admin: TestUser;
let operator: WebClient;
beforeAll(async () => {
  ({ server, admin } = await startServerAndAdmin({ AUTH_OPERATOR_SUBJECTS: OPERATOR }));
  operator = webClient(server.baseUrl);
  await signInThroughEmbeddedProvider(operator, OPERATOR);
});
afterAll(() => server.close());

const WAIT = 30_000;

/** Public: "42" (answer) and ≤ 200 characters (concise). Private: "seven" and "eight". */
const CONTEST_JUDGE = {
  kind: 'rubric',
  criteria: [
    { name: 'answer', weight: 1, check: { type: 'contains', value: '42' } },
    { name: 'concise', weight: 1, check: { type: 'length', max: 200 } },
    { name: 'heldout-seven', weight: 1, private: true, check: { type: 'contains', value: 'seven' } },
    { name: 'heldout-eight', weight: 1, private: true, check: { type: 'contains', value: 'eight' } },
  ],
};
const TRACE = /heldout|private/i;

async function judged(agent: TestAgent, sessionId: string, content: string): Promise<string> {
  const res = await submit(server, agent.token, sessionId, { content });
  expect(res.status).toBe(201);
  const done = await waitForSubmission(server, agent.token, res.body.data.id);
  expect(done.submission_status).toBe('complete');
  return res.body.data.id;
}

async function statusOf(challengeId: string): Promise<string> {
  const res = await server.request('GET', `/api/v1/challenges/${challengeId}`);
  return res.body.data.status;
}

async function endNow(challengeId: string): Promise<void> {
  const res = await server.request('PATCH', `/api/v1/admin/challenges/${challengeId}`, {
    auth: admin.jwt,
    body: { ends_at: new Date(Date.now() - 1000).toISOString() },
  });
  expect(res.status).toBe(200);
  await eventually(async () => (await statusOf(challengeId)) === 'complete', WAIT);
}

describe('private tests and the final board', () => {
  test('a failed private criterion leaves no trace while active; the final board ranks selections by private score', async () => {
    const challenge = await createActive(
      server,
      { judge: CONTEST_JUDGE, ends_at: inSeconds(3600), final_submissions: 1 },
      admin,
    );
    expect(challenge.final_submissions).toBe(1);
    expect(challenge.freeze_minutes).toBe(0);
    const ada = await newAgent(server, { name: 'ada' });
    const bob = await newAgent(server, { name: 'bob' });
    const adaSession = await sessionFor(server, ada, challenge.id);
    const bobSession = await sessionFor(server, bob, challenge.id);
    // Ada: public 100 / private 0, then public 50 / private 100. Bob: public 100 / private 50.
    const adaFirst = await judged(ada, adaSession, 'the answer is 42');
    const adaSecond = await judged(ada, adaSession, 'seven eight');
    const bobOnly = await judged(bob, bobSession, '42 and seven');

    // The owner's breakdown, result, history; another competitor's and an anonymous reader's views.
    const ownBreakdown = await server.request('GET', `/api/v1/submissions/${adaFirst}/breakdown`, {
      auth: ada.token,
    });
    expect(ownBreakdown.status).toBe(200);
    expect(ownBreakdown.body.data.final_score).toBe(100);
    expect(ownBreakdown.body.data.criteria.map((c: any) => c.name)).toEqual(['answer', 'concise']);
    expect(ownBreakdown.body.data.hidden_summary).toEqual({ hidden_passed: 0, hidden_total: 0 });
    expect(ownBreakdown.text).not.toMatch(TRACE);
    const otherBreakdown = await server.request('GET', `/api/v1/submissions/${adaFirst}/breakdown`, {
      auth: bob.token,
    });
    expect(otherBreakdown.body.data.audience).toBe('spectator');
    expect(otherBreakdown.text).not.toMatch(TRACE);
    const result = await server.request('GET', `/api/v1/results/${adaFirst}`, { auth: ada.token });
    expect(result.body.data.final_score).toBe(100);
    expect(result.text).not.toMatch(TRACE);
    const history = await server.request('GET', `/api/v1/submissions?challenge_id=${challenge.id}`, {
      auth: ada.token,
    });
    expect(history.body.data).toHaveLength(2);
    expect(history.text).not.toMatch(TRACE);
    const detail = await server.request('GET', `/api/v1/challenges/${challenge.id}`, { auth: ada.token });
    expect(detail.body.data.judge_public.criteria.map((c: any) => c.name)).toEqual(['answer', 'concise']);
    expect(detail.body.data.judge_public.hidden_criteria_count).toBe(0);
    expect(detail.text).not.toMatch(TRACE);
    const board = await server.request('GET', `/api/v1/leaderboards/${challenge.id}`);
    expect(board.body.data.map((r: any) => [r.agent_name, r.best_score])).toEqual([
      ['ada', 100],
      ['bob', 100],
    ]);
    expect(board.text).not.toMatch(TRACE);
    const csv = await server.request('GET', `/api/v1/leaderboards/${challenge.id}/export.csv`);
    expect(csv.status).toBe(200);
    expect(csv.text).not.toMatch(TRACE);
    const feed = await server.request('GET', `/api/v1/challenges/${challenge.id}/events`);
    expect(feed.status).toBe(200);
    expect(feed.text).not.toMatch(TRACE);
    const page = await server.request('GET', `/challenges/${challenge.id}`);
    expect(page.text).not.toMatch(/heldout/);
    // Webhook payloads (the outbox the deliveries are made from) carry the public score only.
    const outbox = await server.deps.db.query(
      `SELECT payload::text AS payload FROM outbox_events WHERE challenge_id = $1`,
      [challenge.id],
    );
    expect(outbox.rows.length).toBeGreaterThan(0);
    for (const row of outbox.rows) expect(row.payload).not.toMatch(TRACE);
    // Before completion the final board is the operators'.
    await expectError(
      await server.request('GET', `/api/v1/leaderboards/${challenge.id}?board=final`),
      404,
      'NOT_FOUND',
    );
    expectError(
      await server.request('GET', `/api/v1/leaderboards/${challenge.id}?board=final`, { auth: ada.token }),
      404,
      'NOT_FOUND',
    );
    // Operators see private scores all along.
    const adminBreakdown = await server.request('GET', `/api/v1/submissions/${adaFirst}/breakdown`, {
      auth: admin.jwt,
    });
    expect(adminBreakdown.body.data.private_score).toBe(0);
    expect(adminBreakdown.body.data.criteria.filter((c: any) => c.private).map((c: any) => c.name)).toEqual([
      'heldout-seven',
      'heldout-eight',
    ]);
    const adminList = await server.request('GET', `/api/v1/admin/submissions?challenge_id=${challenge.id}`, {
      auth: admin.jwt,
    });
    const privateScores = Object.fromEntries(
      adminList.body.data.map((s: any) => [s.id, s.result.private_score]),
    );
    expect(privateScores).toEqual({ [adaFirst]: 0, [adaSecond]: 100, [bobOnly]: 50 });
    // The console's listing shows them beside the public score, and its CSV export carries both.
    const consoleList = await (await operator.fetch(`/admin/challenges/${challenge.id}/submissions`)).text();
    const rowOf = (id: string) =>
      consoleList.split('<tr>').find((tr) => tr.includes(`/admin/submissions/${id}"`));
    expect(consoleList).toContain('<th scope="col" class="num">Private score</th>');
    // The same numbers as the API's listing above: the public score, then the private one.
    const listed: { id: string; result: { final_score: number; private_score: number } }[] =
      adminList.body.data;
    for (const { id, result } of listed)
      expect(rowOf(id)).toContain(
        `<td class="num">${result.final_score.toFixed(2)}</td><td class="num">${result.private_score.toFixed(2)}</td>`,
      );
    const exported = await operator.fetch(`/admin/challenges/${challenge.id}/submissions.csv`);
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toMatch(/^text\/csv/);
    const csvRows = (await exported.text()).trim().split('\r\n');
    expect(csvRows[0]).toBe(
      'submitted_at,submission_id,agent_id,agent_name,status,run,sandbox,final_score,private_score,private_state',
    );
    expect(
      Object.fromEntries(
        csvRows.slice(1).map((line) => [line.split(',')[1], line.split(',').slice(7).join(',')]),
      ),
    ).toEqual(
      Object.fromEntries(
        listed.map(({ id, result }) => [id, `${result.final_score},${result.private_score},done`]),
      ),
    );

    // Selection: the owner only, up to final_submissions (1 here).
    expectError(
      await server.request('POST', `/api/v1/submissions/${adaSecond}/select`, { auth: bob.token }),
      404,
      'NOT_FOUND',
    );
    const selected = await server.request('POST', `/api/v1/submissions/${adaSecond}/select`, {
      auth: ada.token,
    });
    expect(selected.status).toBe(200);
    expect(selected.body.data.selected).toBe(true);
    expectError(
      await server.request('POST', `/api/v1/submissions/${adaFirst}/select`, { auth: ada.token }),
      400,
      'VALIDATION_ERROR',
    );
    const operatorsFinal = await server.request('GET', `/api/v1/leaderboards/${challenge.id}?board=final`, {
      auth: admin.jwt,
    });
    expect(operatorsFinal.status).toBe(200);
    expect(operatorsFinal.body.data[0].submission_id).toBe(adaSecond);

    await endNow(challenge.id);

    // Selections are closed once complete; the final board is public.
    expectError(
      await server.request('DELETE', `/api/v1/submissions/${adaSecond}/select`, { auth: ada.token }),
      409,
      'CONFLICT',
    );
    const final = await server.request('GET', `/api/v1/leaderboards/${challenge.id}?board=final`);
    expect(final.status).toBe(200);
    expect(final.body.data).toEqual([
      {
        rank: 1,
        agent_id: ada.agentId,
        agent_name: 'ada',
        submission_id: adaSecond,
        final_score: 50,
        private_score: 100,
      },
      {
        rank: 2,
        agent_id: bob.agentId,
        agent_name: 'bob',
        submission_id: bobOnly,
        final_score: 100,
        private_score: 50,
      },
    ]);
    // The public board stays as it was.
    const publicAfter = await server.request('GET', `/api/v1/leaderboards/${challenge.id}`);
    expect(publicAfter.body.data.map((r: any) => r.agent_name)).toEqual(['ada', 'bob']);
    const finalCsv = await server.request(
      'GET',
      `/api/v1/leaderboards/${challenge.id}/export.csv?board=final`,
    );
    expect(finalCsv.text.split('\r\n')[0]).toBe(
      'rank,agent_id,agent_name,submission_id,final_score,private_score',
    );
    expect(finalCsv.text).toContain(`1,${ada.agentId},ada,${adaSecond},50,100`);
    // After completion private criteria appear with private: true; the owner sees private_score.
    const revealed = await server.request('GET', `/api/v1/submissions/${adaFirst}/breakdown`, {
      auth: ada.token,
    });
    expect(revealed.body.data.private_score).toBe(0);
    expect(revealed.body.data.criteria.filter((c: any) => c.private).map((c: any) => c.name)).toEqual([
      'heldout-seven',
      'heldout-eight',
    ]);
    const ownResult = await server.request('GET', `/api/v1/results/${adaFirst}`, { auth: ada.token });
    expect(ownResult.body.data.private_score).toBe(0);
  });
});

describe('a private test of the tests judge', () => {
  test("a failing private test shows in no competitor's view while active (details, counts, summary, judge_public, boards); operators see it", async () => {
    const challenge = await createActive(
      server,
      {
        judge: {
          kind: 'tests',
          timeout_ms_per_test: 5000,
          tests: [
            { name: 'adds', export: 'add', args: [2, 3], expected: 5 },
            { name: 'secret negative', export: 'add', args: [-2, -3], expected: -5, hidden: true },
            { name: 'heldout-overflow', export: 'add', args: [1, 1], expected: 3, private: true },
          ],
        },
        ends_at: inSeconds(3600),
      },
      admin,
    );
    const ada = await newAgent(server, { name: 'ada' });
    const res = await submit(server, ada.token, await sessionFor(server, ada, challenge.id), {
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
    const id = res.body.data.id as string;
    const done = await waitForSubmission(server, ada.token, id, ['complete', 'failed'], 60_000);
    expect(done.submission_status).toBe('complete');
    expect(done.result.final_score).toBe(100);
    // The private pass follows the public result (docs/decisions/judging.md, "The private pass"):
    // every view below is read once the private outcome is stored too, so none can leak it.
    await eventually(async () => {
      const result = await server.request('GET', `/api/v1/results/${id}`, { auth: admin.jwt });
      return result.body.data?.private_state === 'done' ? true : undefined;
    }, WAIT);

    const own = await server.request('GET', `/api/v1/submissions/${id}/breakdown`, { auth: ada.token });
    expect(own.body.data.details.tests.map((t: any) => t.name)).toEqual(['adds']);
    expect(own.body.data.hidden_summary).toEqual({ hidden_passed: 1, hidden_total: 1 });
    expect(own.body.data.summary).not.toMatch(/of 3/);
    expect(own.text).not.toMatch(TRACE);
    const bob = await newAgent(server, { name: 'bob' });
    for (const view of [
      await server.request('GET', `/api/v1/submissions/${id}/breakdown`, { auth: bob.token }),
      await server.request('GET', `/api/v1/results/${id}`, { auth: ada.token }),
      await server.request('GET', `/api/v1/submissions/${id}`, { auth: ada.token }),
      await server.request('GET', `/api/v1/submissions?challenge_id=${challenge.id}`, { auth: ada.token }),
      await server.request('GET', `/api/v1/challenges/${challenge.id}`),
      await server.request('GET', `/api/v1/leaderboards/${challenge.id}`),
      await server.request('GET', `/api/v1/leaderboards/${challenge.id}/export.csv`),
      await server.request('GET', `/challenges/${challenge.id}`),
    ]) {
      expect(view.status).toBe(200);
      expect(view.text).not.toMatch(/heldout/i);
    }
    const detail = await server.request('GET', `/api/v1/challenges/${challenge.id}`);
    expect(detail.body.data.judge_public.tests.map((t: any) => t.name)).toEqual(['adds']);
    const outbox = await server.deps.db.query(
      `SELECT payload::text AS payload FROM outbox_events WHERE challenge_id = $1`,
      [challenge.id],
    );
    for (const row of outbox.rows) expect(row.payload).not.toMatch(TRACE);

    const operators = await server.request('GET', `/api/v1/submissions/${id}/breakdown`, { auth: admin.jwt });
    expect(operators.body.data.private_score).toBe(0);
    expect(
      operators.body.data.criteria.filter((c: any) => c.private).map((c: any) => [c.name, c.passed]),
    ).toEqual([['heldout-overflow', false]]);
  });
});

describe('the freeze', () => {
  test("a second competitor's new best stays off the public board until completion; operators and the owner see it", async () => {
    const challenge = await createActive(server, { ends_at: inSeconds(3600) }, admin);
    const ada = await newAgent(server, { name: 'ada' });
    const bob = await newAgent(server, { name: 'bob' });
    await judged(ada, await sessionFor(server, ada, challenge.id), 'hello there, 42');
    const bobSession = await sessionFor(server, bob, challenge.id);
    // Bob scores lower first, before the freeze.
    await judged(bob, bobSession, 'x'.repeat(300));
    const before = await server.request('GET', `/api/v1/leaderboards/${challenge.id}`);
    const bobBefore = before.body.data.find((r: any) => r.agent_name === 'bob');
    const adaScore = before.body.data.find((r: any) => r.agent_name === 'ada').best_score;
    expect(bobBefore.best_score).toBeLessThan(adaScore);

    // The last 30 minutes before an end 30 minutes away: frozen from now on (after both results).
    const frozen = await server.request('PATCH', `/api/v1/admin/challenges/${challenge.id}`, {
      auth: admin.jwt,
      body: { ends_at: inSeconds(1800), freeze_minutes: 30 },
    });
    expect(frozen.status).toBe(200);
    const best = await judged(bob, bobSession, 'hello 42');

    const publicBoard = await server.request('GET', `/api/v1/leaderboards/${challenge.id}`);
    expect(publicBoard.body.data.map((r: any) => [r.agent_name, r.best_score])).toEqual(
      before.body.data.map((r: any) => [r.agent_name, r.best_score]),
    );
    const bobsView = await server.request('GET', `/api/v1/leaderboards/${challenge.id}`, { auth: bob.token });
    expect(bobsView.body.data.find((r: any) => r.agent_name === 'bob').best_score).toBe(bobBefore.best_score);
    const csv = await server.request('GET', `/api/v1/leaderboards/${challenge.id}/export.csv`);
    expect(csv.text).not.toContain(best);
    const page = await server.request('GET', `/challenges/${challenge.id}`);
    expect(page.text).toMatch(/id="leaderboard-frozen"[^>]*>The leaderboard is frozen since /);
    // The rules say when it freezes and what counts at the end, before anyone asks.
    expect(page.text).toMatch(/id="freeze-rule">The last 30 minutes \(from \d{4}-\d\d-\d\d \d\d:\d\d UTC\)/);
    expect(page.text).toContain('id="final-rule">Your 2 selected submissions count');
    // The owner still sees its own result; operators the live board.
    const own = await getWithinLimits(server, `/api/v1/results/${best}`, bob.token);
    expect(own.body.data.final_score).toBe(100);
    const live = await server.request('GET', `/api/v1/leaderboards/${challenge.id}`, { auth: admin.jwt });
    expect(live.body.data.find((r: any) => r.agent_name === 'bob').best_submission_id).toBe(best);

    await endNow(challenge.id);
    const after = await server.request('GET', `/api/v1/leaderboards/${challenge.id}`);
    expect(after.body.data.find((r: any) => r.agent_name === 'bob').best_submission_id).toBe(best);
    const afterCsv = await server.request('GET', `/api/v1/leaderboards/${challenge.id}/export.csv`);
    expect(afterCsv.text).toContain(best);
  });
});

describe('clarifications', () => {
  test('a private question is invisible to another competitor; a public answer and announcements reach everyone', async () => {
    const challenge = await createActive(server, {}, admin);
    const ada = await newAgent(server, { name: 'ada' });
    const bob = await newAgent(server, { name: 'bob' });
    const path = `/api/v1/challenges/${challenge.id}/clarifications`;
    expectError(
      await server.request('POST', path, { body: { question: 'anonymous?' } }),
      401,
      'UNAUTHORIZED',
    );
    expectError(
      await server.request('POST', path, { auth: ada.token, body: { question: '   ' } }),
      400,
      'VALIDATION_ERROR',
    );
    const privateOne = await server.request('POST', path, {
      auth: ada.token,
      body: { question: 'Is the secret input sorted?' },
    });
    expect(privateOne.status).toBe(201);
    expect(privateOne.body.data).toMatchObject({ kind: 'question', answer: null, public: false });
    const publicOne = await server.request('POST', path, {
      auth: ada.user.jwt,
      body: { question: 'May we use the standard library?' },
    });
    expect(publicOne.status).toBe(201);

    const seen = async (auth?: string) =>
      (await server.request('GET', path, auth ? { auth } : {})).body.data.map((c: any) => c.id);
    // Who sees what, per audience, is proved on the domain (test/unit/domain/contests/clarifications.test.ts);
    // here, that each credential reaches it as its principal.
    expect(await seen(bob.token)).toEqual([]);
    expect(await seen(ada.token)).toEqual([privateOne.body.data.id, publicOne.body.data.id]);

    expectError(
      await server.request('POST', `/api/v1/admin/clarifications/${privateOne.body.data.id}/answer`, {
        auth: ada.user.jwt,
        body: { answer: 'no', public: false },
      }),
      403,
      'FORBIDDEN',
    );
    const privateAnswer = await server.request(
      'POST',
      `/api/v1/admin/clarifications/${privateOne.body.data.id}/answer`,
      { auth: admin.jwt, body: { answer: 'We cannot say.', public: false } },
    );
    expect(privateAnswer.status).toBe(200);
    const publicAnswer = await server.request(
      'POST',
      `/api/v1/admin/clarifications/${publicOne.body.data.id}/answer`,
      { auth: admin.jwt, body: { answer: 'Yes.', public: true } },
    );
    expect(publicAnswer.body.data).toMatchObject({ public: true, answer: 'Yes.' });
    const announcement = await server.request(
      'POST',
      `/api/v1/admin/challenges/${challenge.id}/announcements`,
      {
        auth: admin.jwt,
        body: { text: 'Test 3 was fixed.' },
      },
    );
    expect(announcement.status).toBe(201);
    expect(announcement.body.data).toMatchObject({
      kind: 'announcement',
      question: null,
      answer: 'Test 3 was fixed.',
      public: true,
    });

    expect(await seen()).toEqual([publicOne.body.data.id, announcement.body.data.id]);
    const page = await server.request('GET', `/challenges/${challenge.id}`);
    expect(page.text).toContain('May we use the standard library?');
    expect(page.text).toContain('Test 3 was fixed.');
    expect(page.text).not.toContain('secret input');
    const audit = await server.request('GET', `/api/v1/admin/audit?target_id=${challenge.id}`, {
      auth: admin.jwt,
    });
    expect(audit.body.data.map((r: any) => r.action).sort()).toEqual(
      expect.arrayContaining(['challenge.announce', 'clarification.answer']),
    );
  });
});
