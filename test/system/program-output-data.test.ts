/**
 * Whatever a program writes is data (issue 37, DESIGN "Whatever a program writes is data"),
 * through the API and the real worker: a correct C or Python program that also writes NUL and
 * invalid UTF-8 to stderr scores 100 and its owner reads the excerpt (bytes replaced, and said
 * so); the same bytes on stdout are a judged wrong answer (complete, never failed); the verdict
 * compares bytes, so 0xff is not the U+FFFD it would decode to. In games: a player writing NUL
 * to its stderr plays a match that completes and its owner reads its log; a player sending an
 * action holding a lone surrogate plays a match that completes with its replay stored.
 */
import { randomUUID } from 'node:crypto';
import { connectFour } from '../../src/judging/games/connect-four';
import { REPLACED_NOTE } from '../../src/lib/storable-text';
import { challengeBody } from '../helpers/challenge-factories';
import { eventually, newAgent, type TestUser } from '../helpers/factories';
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
beforeAll(async () => ({ server, admin } = await startServerAndAdmin()));
afterAll(() => server?.close());

jest.setTimeout(900_000);

const FFFD = '\uFFFD';
/** The bytes each program writes beside its answer: NUL, an invalid byte, an overlong NUL. */
const C_BYTES = String.raw`"a\0b\xff\xc0\x80\n"`;
const PY_BYTES = String.raw`b"a\x00b\xff\xc0\x80\n"`;

const PROGRAMS = {
  c: {
    stderr: {
      path: 'main.c',
      content: `#include <stdio.h>\nint main(void){long a,b;scanf("%ld %ld",&a,&b);fwrite(${C_BYTES},1,7,stderr);fflush(stderr);printf("%ld\\n",a+b);return 0;}\n`,
    },
    stdout: {
      path: 'main.c',
      content: `#include <stdio.h>\nint main(void){long a,b;scanf("%ld %ld",&a,&b);fwrite(${C_BYTES},1,7,stdout);printf("%ld\\n",a+b);return 0;}\n`,
    },
  },
  python: {
    stderr: {
      path: 'main.py',
      content: `import sys\na, b = map(int, input().split())\nsys.stderr.buffer.write(${PY_BYTES})\nsys.stderr.flush()\nprint(a + b)\n`,
    },
    stdout: {
      path: 'main.py',
      content: `import sys\na, b = map(int, input().split())\nsys.stdout.buffer.write(${PY_BYTES})\nsys.stdout.flush()\nprint(a + b)\n`,
    },
  },
} as const;

const JUDGE = {
  kind: 'program',
  time_limit_ms: 2000,
  memory_mb: 64,
  tests: [
    { name: 'visible', stdin: '1 2\n', expected_stdout: '3\n' },
    { name: 'hidden', hidden: true, stdin: '40 2\n', expected_stdout: '42\n' },
  ],
} as const;

/** Submits one program as a new agent; answers the finished submission and the owner's breakdown. */
async function judged(challengeId: string, file: { path: string; content: string }) {
  const agent = await newAgent(server);
  const sessionId = await sessionFor(server, agent, challengeId);
  const res = await submit(server, agent.token, sessionId, { content: file.path, files: [file] });
  expect(res.status).toBe(201);
  const detail = await waitForSubmission(
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
  return { detail, breakdown };
}

describe('a program that writes NUL and invalid UTF-8', () => {
  let challengeId: string;
  beforeAll(async () => {
    challengeId = await newChallenge(server, { judge: JUDGE as never, max_submissions_per_session: 10 });
  });

  test.each(['c', 'python'] as const)('%s: on stderr, a correct program scores 100', async (language) => {
    const { detail, breakdown } = await judged(challengeId, PROGRAMS[language].stderr);
    expect({ status: detail.submission_status, score: detail.result?.final_score }).toEqual({
      status: 'complete',
      score: 100,
    });
    expect(breakdown.status).toBe(200);
    const visible = breakdown.body.data.details.tests[0];
    expect(visible.verdict).toBe('accepted');
    // What was stored says the bytes were replaced.
    expect(visible.stderr_excerpt).toContain(`a${FFFD}b${FFFD}`);
    expect(visible.stderr_excerpt).toContain(REPLACED_NOTE);
  });

  test.each(['c', 'python'] as const)('%s: on stdout, a judged wrong answer', async (language) => {
    const { detail, breakdown } = await judged(challengeId, PROGRAMS[language].stdout);
    expect({ status: detail.submission_status, score: detail.result?.final_score }).toEqual({
      status: 'complete',
      score: 0,
    });
    expect(breakdown.status).toBe(200);
    expect(breakdown.body.data.details.tests.map((t: { verdict: string }) => t.verdict)).toEqual([
      'wrong_answer',
      'wrong_answer',
    ]);
    expect(breakdown.body.data.details.tests[0].stdout_excerpt).toContain(REPLACED_NOTE);
  });

  test('the verdict compares bytes: 0xff is not the U+FFFD it would decode to', async () => {
    const bytesChallenge = await newChallenge(server, {
      judge: {
        kind: 'program',
        time_limit_ms: 2000,
        memory_mb: 64,
        tests: [{ name: 'replacement character', stdin: '\n', expected_stdout: `${FFFD}\n` }],
      } as never,
    });
    const writes = (bytes: string) => ({
      path: 'main.py',
      content: `import sys\nsys.stdout.buffer.write(${bytes})\nsys.stdout.flush()\n`,
    });
    const invalid = await judged(bytesChallenge, writes(String.raw`b"\xff\n"`));
    expect(invalid.detail.submission_status).toBe('complete');
    expect(invalid.breakdown.body.data.details.tests[0].verdict).toBe('wrong_answer');
    // The real U+FFFD (ef bf bd) is the expected output.
    const real = await judged(bytesChallenge, writes(String.raw`b"\xef\xbf\xbd\n"`));
    expect(real.breakdown.body.data.details.tests[0].verdict).toBe('accepted');
  });
});

describe('game players whose output PostgreSQL would refuse', () => {
  const GAME_JUDGE = {
    kind: 'game',
    game: 'connect-four',
    turn_ms: 100,
    bank_ms: 300,
    memory_mb: 128,
    games_per_match: 2,
  };
  let challengeId: string;
  beforeAll(async () => {
    const res = await server.request('POST', '/api/v1/admin/challenges', {
      auth: admin.jwt,
      body: challengeBody({
        format: 'game',
        weight_class_id: `wc-${randomUUID().slice(0, 8)}`,
        judge: GAME_JUDGE,
        max_submissions_per_session: 10,
        // No matchmaker rounds during the test: the exhibitions below are the only matches.
        match: { rematch_after_minutes: 0, every_minutes: 1440, rated: false },
      }),
    });
    expect(res.status).toBe(201);
    challengeId = res.body.data.id;
    const published = await server.request('POST', `/api/v1/admin/challenges/${challengeId}/publish`, {
      auth: admin.jwt,
    });
    expect(published.status).toBe(200);
  });

  /** An exhibition between two validated agents, played to its end. */
  async function played(agentIds: string[]): Promise<{ id: string; status: string }> {
    const created = await server.request('POST', `/api/v1/admin/challenges/${challengeId}/matches`, {
      auth: admin.jwt,
      body: { agent_ids: agentIds },
    });
    expect(created.status).toBe(201);
    const id: string = created.body.data.id;
    // Before the fix the match stayed `running` past its own cap: the bound says it never ends.
    const status = await eventually(
      async () => {
        const res = await server.deps.db.query<{ status: string }>(
          'SELECT status FROM matches WHERE id = $1',
          [id],
        );
        return ['complete', 'void'].includes(res.rows[0]?.status) ? res.rows[0].status : undefined;
      },
      300_000,
      500,
    );
    return { id, status };
  }

  /** Plays the first legal column; `extra` runs each turn before the answer (Python). */
  const stacker = (extra: string) => `import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("done"):
        break
    observation = message["observation"]
${extra
  .split('\n')
  .map((l) => `    ${l}`)
  .join('\n')}
    print(json.dumps({"action": observation["legal_actions"][0]}), flush=True)
`;

  test('a player writing NUL to stderr plays a match that completes; its owner reads its log', async () => {
    const [noisy, boss] = await Promise.all([
      validatedGamePlayer(server, challengeId, {
        path: 'main.py',
        content: stacker(String.raw`sys.stderr.buffer.write(b"nul\x00here\xff\n")` + '\nsys.stderr.flush()'),
      }),
      validatedGamePlayer(server, challengeId, { path: 'main.py', content: connectFour.boss.source }),
    ]);
    const match = await played([noisy.agent.agentId, boss.agent.agentId]);
    expect(match.status).toBe('complete');
    const log = await server.request('GET', `/api/v1/matches/${match.id}/logs/${noisy.agent.agentId}`, {
      auth: noisy.agent.token,
    });
    expect(log.status).toBe(200);
    expect(log.body.data.games[0].stderr).toContain(`nul${FFFD}here`);
  });

  test('a player sending a lone surrogate in a match: the match completes and its replay is stored', async () => {
    // Against itself it never sees a disc in column 3 or beyond; the boss opens in the centre.
    const [bomber, boss] = await Promise.all([
      validatedGamePlayer(server, challengeId, {
        path: 'main.py',
        content: stacker(
          [
            'if any(row[c] != 0 for row in observation["board"] for c in range(3, len(row))):',
            `    print('{"action": "\\\\ud800"}', flush=True)`,
            '    continue',
          ].join('\n'),
        ),
      }),
      validatedGamePlayer(server, challengeId, { path: 'main.py', content: connectFour.boss.source }),
    ]);
    const match = await played([bomber.agent.agentId, boss.agent.agentId]);
    expect(match.status).toBe('complete');
    const replay = await server.request('GET', `/api/v1/matches/${match.id}/replay`);
    expect(replay.status).toBe(200);
    expect(replay.body.data.games).toHaveLength(2);
    expect(JSON.stringify(replay.body.data)).not.toMatch(/\\ud800/i);
  });
});
