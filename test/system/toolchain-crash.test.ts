/**
 * Issue 27, item 3, through the API and the real worker: files that crash or stall esbuild (a
 * 0.8 MB nest of brackets; a chain of 200k unary operators that overflows its parser's stack
 * with no bracket at all) submitted as TypeScript and JavaScript to a `program` and a `tests`
 * challenge are judged 0 as that submission's `compile_error`, never `failed`; afterwards correct
 * JavaScript and TypeScript submissions of someone else score 100 on the same worker, without a
 * restart (before the fix, esbuild's shared service was dead and every one of them scored 0).
 */
import { newAgent } from '../helpers/factories';
import { newChallenge, sessionFor, submit, waitForSubmission } from '../helpers/submission-factories';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

jest.setTimeout(600_000);

/** 400k `[` then 400k `]`: 0.8 MB that overflowed esbuild's parser (its service process died). */
const BRACKETS = `x=${'['.repeat(400_000)}${']'.repeat(400_000)};\n`;
/** No bracket nesting at all, still a 200k-deep recursion in esbuild's parser. */
const UNARY = `export const x = ${'!'.repeat(200_000)}1;\n`;

const PROGRAM_JUDGE = {
  kind: 'program',
  time_limit_ms: 2000,
  memory_mb: 128,
  tests: [{ name: 'adds', stdin: '2 3\n', expected_stdout: '5\n' }],
} as const;
const TESTS_JUDGE = {
  kind: 'tests',
  timeout_ms_per_test: 2000,
  tests: [{ name: 'adds', export: 'add', args: [2, 3], expected: 5 }],
} as const;

const CORRECT = {
  program: {
    'main.js':
      "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\nconsole.log(a + b);\n",
    'main.ts':
      "import { readFileSync } from 'fs';\nconst [a, b]: number[] = readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\nconsole.log(a + b);\n",
  },
  tests: {
    'main.js': 'export function add(a, b) { return a + b; }\n',
    'main.ts': 'export function add(a: number, b: number): number { return a + b; }\n',
  },
} as const;

async function judged(agent: { token: string }, sessionId: string, path: string, content: string) {
  const res = await submit(server, agent.token, sessionId, { content: path, files: [{ path, content }] });
  expect(res.status).toBe(201);
  const done = await waitForSubmission(
    server,
    agent.token,
    res.body.data.id,
    ['complete', 'failed'],
    400_000,
  );
  const breakdown = await server.request('GET', `/api/v1/submissions/${res.body.data.id}/breakdown`, {
    auth: agent.token,
  });
  return { done, details: breakdown.body.data?.details };
}

test('crash files are judged compile_error, then correct JS and TS submissions score 100 on the same worker', async () => {
  const programId = await newChallenge(server, {
    judge: PROGRAM_JUDGE as never,
    max_submissions_per_session: 20,
  });
  const testsId = await newChallenge(server, {
    judge: TESTS_JUDGE as never,
    max_submissions_per_session: 20,
  });
  const attacker = await newAgent(server);
  const attackerSessions = {
    program: await sessionFor(server, attacker, programId),
    tests: await sessionFor(server, attacker, testsId),
  };

  // One after another: every crash file meets the worker's toolchain on its own.
  const attacks: [keyof typeof attackerSessions, string, string][] = [
    ['program', 'main.ts', BRACKETS],
    ['program', 'main.js', BRACKETS],
    ['tests', 'main.ts', BRACKETS],
    ['tests', 'main.js', BRACKETS],
    ['program', 'main.ts', UNARY],
    ['tests', 'main.ts', UNARY],
  ];
  const attacked: {
    judge: string;
    path: string;
    shape: string;
    done: Awaited<ReturnType<typeof judged>>['done'];
    details: Awaited<ReturnType<typeof judged>>['details'];
  }[] = [];
  for (const [judge, path, content] of attacks) {
    const { done, details } = await judged(attacker, attackerSessions[judge], path, content);
    attacked.push({ judge, path, shape: content === BRACKETS ? 'brackets' : 'unary', done, details });
  }

  const victim = await newAgent(server);
  const victimSessions = {
    program: await sessionFor(server, victim, programId),
    tests: await sessionFor(server, victim, testsId),
  };
  const results = await Promise.all(
    (['program', 'tests'] as const).flatMap((judge) =>
      (['main.js', 'main.ts'] as const).map(async (path) => {
        const { done } = await judged(victim, victimSessions[judge], path, CORRECT[judge][path]);
        return { judge, path, status: done.submission_status, score: done.result?.final_score };
      }),
    ),
  );
  expect(results).toEqual([
    { judge: 'program', path: 'main.js', status: 'complete', score: 100 },
    { judge: 'program', path: 'main.ts', status: 'complete', score: 100 },
    { judge: 'tests', path: 'main.js', status: 'complete', score: 100 },
    { judge: 'tests', path: 'main.ts', status: 'complete', score: 100 },
  ]);

  // The attacks themselves: judged, score 0, compile_error with the reason; never failed.
  for (const { judge, path, shape, done, details } of attacked) {
    expect({ judge, path, shape, status: done.submission_status, result: done.result }).toMatchObject({
      judge,
      path,
      shape,
      status: 'complete',
      result: { final_score: 0, result_state: 'scored' },
    });
    const why = shape === 'brackets' ? /nest(ed|ing).*deeper than \d+/ : /esbuild.*crashed.*twice/;
    if (judge === 'program') {
      expect(details.tests.map((t: { verdict: string }) => t.verdict)).toEqual(['compile_error']);
      // TypeScript: refused before parsing (brackets), or the toolchain's crash named after its
      // retry (unary). JavaScript is syntax-checked by node inside the wall, as before.
      if (path === 'main.ts') expect(details.compile_output).toMatch(why);
      if (path === 'main.ts' && shape === 'unary') expect(details.reason).toMatch(why);
    } else {
      expect(details.compile_error).toMatch(why);
    }
  }
});
