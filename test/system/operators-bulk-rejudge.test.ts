/**
 * Rejudging a whole challenge (DESIGN, "Fourth-round extensions" → "Operators"): after an operator
 * fixes the judge, POST /api/v1/admin/challenges/{id}/rejudge judges every finished submission
 * again; GET /api/v1/admin/rejudges/{id} shows each one's old and new score. Real HTTP and stack.
 */
import { randomUUID } from 'node:crypto';
import { createActive } from '../helpers/challenge-factories';
import { eventually, newAgent, newUser, type TestUser } from '../helpers/factories';
import { cliInProcess } from '../helpers/cli';
import { expectError, type TestServer } from '../helpers/server';
import { RUBRIC_JUDGE, sessionFor, submit, waitForSubmission } from '../helpers/submission-factories';
import { startServerAndAdmin } from '../helpers/server-and-admin';

let server: TestServer;
let admin: TestUser;
beforeAll(async () => ({ server, admin } = await startServerAndAdmin({ RATE_LIMIT_DISABLED: '1' })));
afterAll(() => server.close());

const rejudge = (challengeId: string, body?: unknown, auth = admin.jwt) =>
  server.request('POST', `/api/v1/admin/challenges/${challengeId}/rejudge`, { auth, body });
const progress = (id: string) => server.request('GET', `/api/v1/admin/rejudges/${id}`, { auth: admin.jwt });

describe('bulk rejudge', () => {
  let challengeId: string;
  const submissions: Record<string, string> = {};

  beforeAll(async () => {
    challengeId = (await createActive(server, { judge: RUBRIC_JUDGE }, admin)).id;
    for (const [name, content] of [
      ['right', 'The answer is 42'],
      ['wrong', 'hello'],
    ]) {
      const agent = await newAgent(server, { name });
      const res = await submit(server, agent.token, await sessionFor(server, agent, challengeId), {
        content,
      });
      expect(res.status).toBe(201);
      submissions[name] = res.body.data.id;
      await waitForSubmission(server, admin.jwt, res.body.data.id);
    }
  });

  test('after fixing the judge, every submission is judged again and the page of progress shows old → new', async () => {
    // The "fix": the answer the challenge wants was "hello" all along.
    const fixed = {
      ...RUBRIC_JUDGE,
      criteria:
        RUBRIC_JUDGE.kind === 'rubric'
          ? RUBRIC_JUDGE.criteria.map((c) =>
              c.name === 'answer' ? { ...c, check: { type: 'contains' as const, value: 'hello' } } : c,
            )
          : [],
    };
    const patched = await server.request('PATCH', `/api/v1/admin/challenges/${challengeId}`, {
      auth: admin.jwt,
      body: { judge: fixed },
    });
    expect(patched.status).toBe(200);

    // Two operators press the button at once: one starts it, the other is told one is running.
    const [a, b] = await Promise.all([rejudge(challengeId), rejudge(challengeId, { status: ['complete'] })]);
    const started = a.status === 202 ? a : b;
    const refused = a.status === 202 ? b : a;
    // Either may win the race; the audit records the statuses the winner asked for.
    const startedStatuses = a.status === 202 ? ['complete', 'failed'] : ['complete'];
    expect(started.status).toBe(202);
    expect(started.body.data).toEqual({ rejudge_id: expect.any(String), count: 2 });
    expectError(refused, 409, 'CONFLICT', /running/);
    const id = started.body.data.rejudge_id as string;

    const done = await eventually(async () => {
      const res = await progress(id);
      return res.body.data.status === 'done' ? res.body.data : undefined;
    }, 60_000);
    expect(done).toMatchObject({ id, challenge_id: challengeId, status: 'done', count: 2, done: 2 });
    const byId = new Map(done.items.map((i: { submission_id: string }) => [i.submission_id, i]));
    expect(byId.get(submissions.right)).toMatchObject({ old_score: 100, new_score: 40 });
    expect(byId.get(submissions.wrong)).toMatchObject({ old_score: 20, new_score: 80 });

    // The submissions' current results are the new ones.
    const current = await server.request('GET', `/api/v1/submissions/${submissions.wrong}`, {
      auth: admin.jwt,
    });
    expect(current.body.data.submission_status).toBe('complete');

    // One audit record for the whole rejudge.
    const trail = await server.request(
      'GET',
      `/api/v1/admin/audit?target_id=${challengeId}&action=challenge.rejudge`,
      { auth: admin.jwt },
    );
    expect(trail.body.data).toHaveLength(1);
    expect(trail.body.data[0]).toMatchObject({
      action: 'challenge.rejudge',
      target_type: 'challenge',
      actor: admin.subject,
      detail: { rejudge_id: id, count: 2, statuses: startedStatuses },
    });

    // Once done, another may start; picking only failed submissions finds none and is done at once.
    const none = await rejudge(challengeId, { status: ['failed'] });
    expect(none.status).toBe(202);
    expect(none.body.data.count).toBe(0);
    expect((await progress(none.body.data.rejudge_id)).body.data).toMatchObject({
      status: 'done',
      count: 0,
      done: 0,
      items: [],
    });
  });

  test('refusals: unknown challenge or rejudge 404, bad status 400, non-operators 403', async () => {
    expectError(await rejudge(randomUUID()), 404, 'NOT_FOUND');
    expectError(await progress(randomUUID()), 404, 'NOT_FOUND');
    expectError(await rejudge(challengeId, { status: ['judging'] }), 400, 'VALIDATION_ERROR');
    expectError(await rejudge(challengeId, { status: [] }), 400, 'VALIDATION_ERROR');
    const user = await newUser(server);
    expectError(await rejudge(challengeId, {}, user.jwt), 403, 'FORBIDDEN');
  });
});

describe('bulk rejudge from the CLI', () => {
  const cli = (argv: string[]) => cliInProcess(server)(argv, { API_JWT: admin.jwt });

  test('rejudges start --wait prints each old → new score; rejudges get shows the same; bad input is a usage error', async () => {
    const challengeId = (await createActive(server, { judge: RUBRIC_JUDGE }, admin)).id;
    const ids: Record<string, string> = {};
    for (const [name, content] of [
      ['cli-right', 'The answer is 42'],
      ['cli-wrong', 'hello'],
    ]) {
      const agent = await newAgent(server, { name });
      const res = await submit(server, agent.token, await sessionFor(server, agent, challengeId), {
        content,
      });
      ids[name] = res.body.data.id;
      await waitForSubmission(server, admin.jwt, res.body.data.id);
    }
    const fixed = {
      ...RUBRIC_JUDGE,
      criteria:
        RUBRIC_JUDGE.kind === 'rubric'
          ? RUBRIC_JUDGE.criteria.map((c) =>
              c.name === 'answer' ? { ...c, check: { type: 'contains' as const, value: 'hello' } } : c,
            )
          : [],
    };
    expect(
      (
        await server.request('PATCH', `/api/v1/admin/challenges/${challengeId}`, {
          auth: admin.jwt,
          body: { judge: fixed },
        })
      ).status,
    ).toBe(200);

    const started = await cli(['rejudges', 'start', challengeId, '--status', 'complete', '--wait']);
    expect(started.err).toMatch(/started: 2 submission\(s\)/);
    expect(started.code).toBe(0);
    const lines = started.out.trim().split('\n');
    const rejudgeId = /^rejudge ([0-9a-f-]{36}) of challenge/.exec(lines[0])?.[1];
    expect(lines[0]).toContain('done, 2 of 2 judged (statuses complete)');
    expect(lines[1]).toMatch(/^SUBMISSION\s+AGENT\s+OLD\s+NEW$/);
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^${ids['cli-right']}\\s+cli-right\\s+100\\.00\\s+40\\.00$`)),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^${ids['cli-wrong']}\\s+cli-wrong\\s+20\\.00\\s+80\\.00$`)),
    );

    const again = await cli(['rejudges', 'get', rejudgeId!]);
    expect(again.code).toBe(0);
    expect(again.out).toBe(started.out);

    const wrongStatus = await cli(['rejudges', 'start', challengeId, '--status', 'judging']);
    expect(wrongStatus.code).toBe(2);
    expect(wrongStatus.err).toContain('--status takes complete and/or failed');
    const unknown = await cli(['rejudges', 'start', randomUUID()]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/404 NOT_FOUND/);
  }, 120_000);
});
