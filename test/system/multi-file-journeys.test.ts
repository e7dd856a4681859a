/**
 * Issue 40's "Done means" beyond the API's own upload, on the real stack: `npm run cli -- submit
 * --dir .` run from a project's root sends every file and the program scores 100; a game player
 * of two C files validates and then plays a whole exhibition match; a toolchain crash (esbuild
 * dying twice on the input) still counts against the submission limits while a compile error the
 * compiler reported is given back.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { connectFour } from '../../src/judging/games/connect-four';
import { challengeBody } from '../helpers/challenge-factories';
import { cliProcess } from '../helpers/cli';
import { eventually, newAgent, type TestAgent, type TestUser } from '../helpers/factories';
import { PROJECTS } from '../helpers/multi-file-projects';
import { type TestServer } from '../helpers/server';
import {
  getWithinLimits,
  newChallenge,
  sessionFor,
  submit,
  validatedGamePlayer,
  waitForSubmission,
} from '../helpers/submission-factories';
import { startServerAndAdmin } from '../helpers/server-and-admin';

let server: TestServer;
let admin: TestUser;
beforeAll(async () => ({ server, admin } = await startServerAndAdmin({ RATE_LIMIT_DISABLED: '1' })));
afterAll(() => server?.close());

jest.setTimeout(900_000);

const SUM_JUDGE = {
  kind: 'program',
  time_limit_ms: 2000,
  memory_mb: 128,
  tests: [
    { name: 'small', stdin: '1 2\n', expected_stdout: '3\n' },
    { name: 'big', stdin: '1000000 2345678\n', expected_stdout: '3345678\n' },
  ],
} as const;

async function judgedSubmission(
  agent: TestAgent,
  sessionId: string,
  files: { path: string; content: string }[],
) {
  const res = await submit(server, agent.token, sessionId, { content: 'a project', files });
  expect(res.status).toBe(201);
  const done = await waitForSubmission(
    server,
    agent.token,
    res.body.data.id,
    ['complete', 'failed'],
    600_000,
  );
  const breakdown = await getWithinLimits(
    server,
    `/api/v1/submissions/${res.body.data.id}/breakdown`,
    agent.token,
  );
  return { id: res.body.data.id as string, done, details: breakdown.body.data.details };
}

test('npm run cli -- submit --dir . from the project root sends every file; the Python project scores 100', async () => {
  const challengeId = await newChallenge(server, { judge: SUM_JUDGE as never });
  const agent = await newAgent(server);
  const root = mkdtempSync(path.join(tmpdir(), 'cli-dir-project-'));
  for (const file of PROJECTS.python) {
    mkdirSync(path.dirname(path.join(root, file.path)), { recursive: true });
    writeFileSync(path.join(root, file.path), file.content);
  }
  // What a project folder also holds, never sent.
  mkdirSync(path.join(root, '.git'));
  writeFileSync(path.join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  mkdirSync(path.join(root, 'lib', '__pycache__'));
  writeFileSync(path.join(root, 'lib', '__pycache__', 'adder.cpython-311.pyc'), 'compiled');

  // `npm run cli` runs in the checkout and hands the caller's folder in INIT_CWD, as npm does.
  const run = await cliProcess(server)(['submit', challengeId, '--dir', '.', '--wait'], {
    CCS_TOKEN: agent.token,
    npm_lifecycle_event: 'cli',
    INIT_CWD: root,
  });
  expect({ code: run.code, err: run.err }).toMatchObject({ code: 0 });
  expect(run.err).toContain('sending 4 files from ., all compiled as one program (entry: main.py):');
  expect(run.err.split('\n').filter((line) => line.startsWith('  '))).toEqual([
    '  lib/__init__.py',
    '  lib/adder.py',
    '  lib/zero.py',
    '  main.py  (entry)',
  ]);
  expect(run.out).toMatch(/complete/);
  const id = /submission ([0-9a-f-]{36}) complete/.exec(run.out)?.[1];
  expect(id).toBeDefined();
  const detail = await getWithinLimits(server, `/api/v1/submissions/${id}`, agent.token);
  expect({ status: detail.body.data.submission_status, score: detail.body.data.result?.final_score }).toEqual(
    {
      status: 'complete',
      score: 100,
    },
  );
  const breakdown = await getWithinLimits(server, `/api/v1/submissions/${id}/breakdown`, agent.token);
  expect(breakdown.body.data.details.language).toBe('python');
});

/** Plays the first legal column; the choice lives in lib/pick.c (included by its folder). */
const TWO_FILE_C_PLAYER = [
  {
    path: 'main.c',
    content: `#include <stdio.h>
#include <string.h>
#include "pick.h"
int main(void) {
  static char line[65536];
  while (fgets(line, sizeof line, stdin)) {
    if (strstr(line, "\\"done\\"")) break;
    printf("{\\"action\\": %d}\\n", first_legal(line));
    fflush(stdout);
  }
  return 0;
}
`,
  },
  { path: 'lib/pick.h', content: 'int first_legal(const char *line);\n' },
  {
    path: 'lib/pick.c',
    content: `#include <stdio.h>
#include <string.h>
#include "pick.h"
int first_legal(const char *line) {
  int action = 0;
  const char *p = strstr(line, "\\"legal_actions\\"");
  if (p && (p = strchr(p, '['))) sscanf(p + 1, "%d", &action);
  return action;
}
`,
  },
];

test('a game player of two C files validates and plays a whole exhibition match', async () => {
  const created = await server.request('POST', '/api/v1/admin/challenges', {
    auth: admin.jwt,
    body: challengeBody({
      format: 'game',
      weight_class_id: `wc-${randomUUID().slice(0, 8)}`,
      judge: {
        kind: 'game',
        game: 'connect-four',
        turn_ms: 500,
        bank_ms: 2000,
        memory_mb: 128,
        games_per_match: 2,
      },
      max_submissions_per_session: 10,
      match: { every_minutes: 1440, rematch_after_minutes: 0 },
    }),
  });
  expect(created.status).toBe(201);
  const challengeId: string = created.body.data.id;
  const published = await server.request('POST', `/api/v1/admin/challenges/${challengeId}/publish`, {
    auth: admin.jwt,
  });
  expect(published.status).toBe(200);

  const player = await newAgent(server);
  const validated = await judgedSubmission(
    player,
    await sessionFor(server, player, challengeId),
    TWO_FILE_C_PLAYER,
  );
  expect(validated.done.submission_status).toBe('complete');
  expect(validated.details).toMatchObject({ verdict: 'accepted', statuses: ['done', 'done'] });
  const boss = (
    await validatedGamePlayer(server, challengeId, { path: 'main.py', content: connectFour.boss.source })
  ).agent;

  const started = await server.request('POST', `/api/v1/admin/challenges/${challengeId}/matches`, {
    auth: admin.jwt,
    body: { agent_ids: [player.agentId, boss.agentId], rated: false },
  });
  expect(started.status).toBe(201);
  const matchId: string = started.body.data.id;
  const match = await eventually(
    async () => {
      const res = await server.request('GET', `/api/v1/matches/${matchId}`, { auth: admin.jwt });
      return ['complete', 'void'].includes(res.body.data.status) ? res.body.data : undefined;
    },
    600_000,
    500,
  );
  expect(match.status).toBe('complete');
  const mine = match.participants.find((p: { agent_id: string }) => p.agent_id === player.agentId);
  expect(mine.submission_id).toBe(validated.id);
  const replay = await server.request('GET', `/api/v1/matches/${matchId}/replay`);
  expect(replay.status).toBe(200);
  expect(replay.body.data.games).toHaveLength(2);
  // Both games played to their end by both programs: the two-file player never faulted.
  for (const game of replay.body.data.games) expect(game.statuses).toEqual(['done', 'done']);
});

/** A chain of 200k unary operators: esbuild's parser overflows its stack, twice (toolchain-crash.test.ts). */
const ESBUILD_CRASH = `export const x = ${'!'.repeat(200_000)}1;\n`;

test("a toolchain crash counts against the limits; the compiler's own compile error is given back", async () => {
  const challengeId = await newChallenge(server, {
    judge: SUM_JUDGE as never,
    max_submissions_per_session: 5,
  });
  const agent = await newAgent(server);
  const sessionId = await sessionFor(server, agent, challengeId);
  const left = async () =>
    (await getWithinLimits(server, `/api/v1/challenges/${challengeId}`, agent.token)).body.data
      .submissions_left.session;
  expect(await left()).toBe(5);

  const crashed = await judgedSubmission(agent, sessionId, [{ path: 'main.ts', content: ESBUILD_CRASH }]);
  expect(crashed.done.result.final_score).toBe(0);
  expect(crashed.details.reason).toMatch(/esbuild.*crashed.*twice/);
  expect(crashed.details.counts_against_limits).toBe(true);
  expect(await left()).toBe(4);

  const broken = await judgedSubmission(agent, sessionId, [
    { path: 'main.c', content: 'int main(void) { return undefined_name; }\n' },
    { path: 'lib/unused.c', content: 'int unused(void) { return 0; }\n' },
  ]);
  expect(broken.details.compile_output).toMatch(/undefined_name/);
  expect(broken.details.counts_against_limits).toBe(false);
  expect(await left()).toBe(4);
});
