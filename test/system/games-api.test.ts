/**
 * Games through the API (DESIGN, "Games"): the public list of games, and a `game` challenge's
 * submissions validated by a self-play game in the worker's wall: 100 when the game finishes
 * without fault, else 0 with the reason (the fault, its turn, the program's stderr).
 */
import { connectFour } from '../../src/judging/games/connect-four';
import { newAgent } from '../helpers/factories';
import { expectError, startTestServer, type TestServer } from '../helpers/server';
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

jest.setTimeout(600_000);

describe('GET /api/v1/games', () => {
  it('lists the built-in games publicly, a sequential and a simultaneous one', async () => {
    const res = await server.request('GET', '/api/v1/games');
    expect(res.status).toBe(200);
    const games = res.body.data as { id: string; simultaneous: boolean }[];
    expect(games).toContainEqual({
      id: 'connect-four',
      name: 'Connect Four',
      players: { min: 2, max: 2 },
      simultaneous: false,
      description: expect.any(String),
    });
    expect(games.find((game) => game.id === 'light-cycles')).toMatchObject({
      simultaneous: true,
      players: { min: 2, max: 4 },
    });
    for (const game of games)
      expect(Object.keys(game).sort()).toEqual(['description', 'id', 'name', 'players', 'simultaneous']);
  });

  it('serves one game with its rules page and its baseline bot; an unknown game is 404', async () => {
    const res = await server.request('GET', '/api/v1/games/light-cycles');
    expect(res.status).toBe(200);
    expect(res.body.data.rules).toMatch(/legal_actions/);
    expect(res.body.data.boss).toMatchObject({ language: 'python', file: 'main.py' });
    expectError(await server.request('GET', '/api/v1/games/chess'), 404, 'NOT_FOUND');
  });
});

describe('a game challenge validates each submission by a game against itself', () => {
  let challengeId: string;
  beforeAll(async () => {
    challengeId = await newChallenge(server, {
      judge: { kind: 'game', game: 'connect-four', turn_ms: 200, bank_ms: 500, memory_mb: 128 } as never,
      max_submissions_per_session: 10,
    });
  });

  it('shows the game and its limits in the public judge', async () => {
    const res = await server.request('GET', `/api/v1/challenges/${challengeId}`);
    expect(res.status).toBe(200);
    expect(res.body.data.judge_public).toMatchObject({
      kind: 'game',
      game: 'connect-four',
      limits: { turn_ms: 200, bank_ms: 500, memory_mb: 128, games_per_match: 2 },
    });
  });

  it('scores 100 for a program that plays a whole game, 0 with the reason for one that faults', async () => {
    const agent = await newAgent(server);
    const sessionId = await sessionFor(server, agent, challengeId);
    const good = await submit(server, agent.token, sessionId, {
      content: 'the boss',
      files: [{ path: 'main.py', content: connectFour.boss.source }],
    });
    expect(good.status).toBe(201);
    const crasher = await submit(server, agent.token, sessionId, {
      content: 'crashes on its second turn',
      files: [
        {
          path: 'main.c',
          content:
            '#include <stdio.h>\n#include <stdlib.h>\nint main(void){char l[65536];int n=0;while(fgets(l,sizeof l,stdin)){if(++n==2){fprintf(stderr,"giving up now\\n");abort();}printf("{\\"action\\": 3}\\n");fflush(stdout);}return 0;}\n',
        },
      ],
    });
    expect(crasher.status).toBe(201);
    const broken = await submit(server, agent.token, sessionId, {
      content: 'does not compile',
      files: [{ path: 'main.c', content: 'int main( {' }],
    });
    expect(broken.status).toBe(201);

    const judged = await Promise.all(
      [good, crasher, broken].map((res) =>
        waitForSubmission(server, agent.token, res.body.data.id, ['complete', 'failed'], 500_000),
      ),
    );
    expect(judged.map((submission) => submission.submission_status)).toEqual([
      'complete',
      'complete',
      'complete',
    ]);
    const breakdown = async (id: string) =>
      (await getWithinLimits(server, `/api/v1/submissions/${id}/breakdown`, agent.token)).body.data;

    const [goodView, crasherView, brokenView] = await Promise.all(
      [good, crasher, broken].map((res) => breakdown(res.body.data.id)),
    );
    expect(goodView.score ?? goodView.final_score).toBe(100);
    expect(goodView.details).toMatchObject({
      game: 'connect-four',
      verdict: 'accepted',
      statuses: ['done', 'done'],
    });

    expect(crasherView.score ?? crasherView.final_score).toBe(0);
    // Seat 1 moves on turns 1, 3, …: its second line is turn 3.
    expect(crasherView.details).toMatchObject({
      verdict: 'error',
      reason: expect.stringMatching(/^crash at turn 3 \(seat 1\): .*SIGABRT/),
      stderr_excerpt: expect.stringContaining('giving up now'),
      fault: { seat: 1, turn: 3, kind: 'error' },
    });

    expect(brokenView.score ?? brokenView.final_score).toBe(0);
    expect(brokenView.details).toMatchObject({
      verdict: 'compile_error',
      reason: expect.stringMatching(/^compile error/),
    });
  });

  it('refuses at submission a language the game challenge does not allow', async () => {
    const onlyPython = await newChallenge(server, {
      judge: { kind: 'game', game: 'connect-four', languages: ['python'] } as never,
    });
    const agent = await newAgent(server);
    const sessionId = await sessionFor(server, agent, onlyPython);
    const res = await submit(server, agent.token, sessionId, {
      content: 'c',
      files: [{ path: 'main.c', content: 'int main(void){return 0;}' }],
    });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.message).toMatch(/python/);
  });
});
