/**
 * Issue 40 through the API and the real worker: every submitted file is part of the program, in
 * all eight languages (DESIGN "Multi-file programs and the competitor's second pass"); a
 * JavaScript/TypeScript import of anything but the submission's own files is a compile error;
 * a compile error leaves `submissions_left` unchanged; a game player of two files validates.
 */
import { connectFour } from '../../src/judging/games/connect-four';
import { type Files, OUTSIDE_IMPORTS, PROJECTS } from '../helpers/multi-file-projects';
import { newAgent } from '../helpers/factories';
import { startTestServer, type TestServer } from '../helpers/server';
import {
  getWithinLimits,
  newChallenge,
  sessionFor,
  submit,
  waitForSubmission,
} from '../helpers/submission-factories';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

jest.setTimeout(900_000);

const JUDGE = {
  kind: 'program',
  time_limit_ms: 2000,
  memory_mb: 64,
  tests: [
    { name: 'small', stdin: '1 2\n', expected_stdout: '3\n' },
    { name: 'big', stdin: '1000000 2345678\n', expected_stdout: '3345678\n' },
  ],
} as const;

async function judged(challengeId: string, files: Files) {
  const agent = await newAgent(server);
  const sessionId = await sessionFor(server, agent, challengeId);
  const res = await submit(server, agent.token, sessionId, { content: 'a project', files });
  expect(res.status).toBe(201);
  const detail = await waitForSubmission(
    server,
    agent.token,
    res.body.data.id,
    ['complete', 'failed'],
    800_000,
  );
  const breakdown = await getWithinLimits(
    server,
    `/api/v1/submissions/${res.body.data.id}/breakdown`,
    agent.token,
  );
  return { detail, breakdown: breakdown.body.data };
}

describe('a program of several files with folders, in every language', () => {
  const results: Record<string, Awaited<ReturnType<typeof judged>>> = {};
  beforeAll(async () => {
    const challengeId = await newChallenge(server, { judge: JUDGE as never });
    await Promise.all(
      [...Object.entries(PROJECTS), ...Object.entries(OUTSIDE_IMPORTS)].map(async ([name, files]) => {
        results[name] = await judged(challengeId, files);
      }),
    );
  });

  test.each(Object.keys(PROJECTS))('%s: every file is compiled, and the program scores 100', (language) => {
    const { detail, breakdown } = results[language];
    expect({ language, status: detail.submission_status, score: detail.result?.final_score }).toEqual({
      language,
      status: 'complete',
      score: 100,
    });
    expect(breakdown.details.language).toBe(language);
  });

  test.each(Object.keys(OUTSIDE_IMPORTS))('%s: a compile error naming the import', (name) => {
    const { detail, breakdown } = results[name];
    expect(detail.result?.final_score).toBe(0);
    expect(breakdown.details.tests.map((t: { verdict: string }) => t.verdict)).toEqual([
      'compile_error',
      'compile_error',
    ]);
    expect(breakdown.details.compile_output).toMatch(
      /imports only Node's built-in modules and the submission's own files/,
    );
  });
});

describe('submission limits', () => {
  it('a compile error leaves submissions_left unchanged; an accepted program uses one', async () => {
    const challengeId = await newChallenge(server, { judge: JUDGE as never, max_submissions_per_session: 3 });
    const agent = await newAgent(server);
    const sessionId = await sessionFor(server, agent, challengeId);
    const left = async () =>
      (await getWithinLimits(server, `/api/v1/challenges/${challengeId}`, agent.token)).body.data
        .submissions_left.session;
    expect(await left()).toBe(3);
    const broken = await submit(server, agent.token, sessionId, {
      content: 'broken',
      files: [{ path: 'main.c', content: 'int main(void) { return undefined_name; }\n' }],
    });
    expect(broken.status).toBe(201);
    const brokenDone = await waitForSubmission(
      server,
      agent.token,
      broken.body.data.id,
      ['complete', 'failed'],
      300_000,
    );
    expect(brokenDone.result.final_score).toBe(0);
    expect(await left()).toBe(3);

    const good = await submit(server, agent.token, sessionId, { content: 'good', files: PROJECTS.c });
    expect(good.status).toBe(201);
    await waitForSubmission(server, agent.token, good.body.data.id, ['complete', 'failed'], 300_000);
    expect(await left()).toBe(2);
  });
});

describe('a game player of two files', () => {
  it('validates by a whole game against itself', async () => {
    const challengeId = await newChallenge(server, {
      judge: { kind: 'game', game: 'connect-four', turn_ms: 500, bank_ms: 2000, memory_mb: 128 } as never,
    });
    const agent = await newAgent(server);
    const sessionId = await sessionFor(server, agent, challengeId);
    const res = await submit(server, agent.token, sessionId, {
      content: 'two files',
      files: [
        { path: 'main.py', content: 'import bot.player  # the loop runs on import\n' },
        { path: 'bot/player.py', content: connectFour.boss.source },
      ],
    });
    expect(res.status).toBe(201);
    const done = await waitForSubmission(
      server,
      agent.token,
      res.body.data.id,
      ['complete', 'failed'],
      600_000,
    );
    expect(done.submission_status).toBe('complete');
    const breakdown = await getWithinLimits(
      server,
      `/api/v1/submissions/${res.body.data.id}/breakdown`,
      agent.token,
    );
    expect(breakdown.body.data.details).toMatchObject({ verdict: 'accepted', statuses: ['done', 'done'] });
  });
});
