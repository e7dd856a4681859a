/**
 * Submitting code the way people do (DESIGN, issue 29), over HTTP against the real worker: the
 * body's `language`, files under their relative paths (and the path forms refused), the entry
 * rules, what is refused at submission (and counts against nothing), `judge_public.entry`, and
 * the README's demo challenge passed with `src/solution.ts`.
 */
import { newAgent, type TestAgent } from '../helpers/factories';
import { newChallenge, sessionFor, submit, waitForSubmission } from '../helpers/submission-factories';
import { expectError, startTestServer, type ApiResponse, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1' });
});
afterAll(() => server.close());

jest.setTimeout(300_000);

/** Reads two numbers, prints their sum. */
const SUM_JUDGE = {
  kind: 'program',
  languages: ['python', 'cpp'],
  tests: [
    { name: 'small', stdin: '1 2\n', expected_stdout: '3\n' },
    { name: 'negative', stdin: '-5 2\n', expected_stdout: '-3\n' },
    { name: 'hidden', hidden: true, stdin: '10 20\n', expected_stdout: '30\n' },
  ],
};
const SUM_PY = 'a, b = map(int, input().split())\nprint(a + b)\n';

/** The README's demo challenge ("Reverse a string"), as src/dev/seed.ts configures it. */
export const REVERSE_JUDGE = {
  kind: 'tests',
  entry: 'src/solution.ts',
  tests: [
    { name: 'reverses a word', export: 'reverse', args: ['hello'], expected: 'olleh' },
    { name: 'keeps emoji intact', export: 'reverse', args: ['a😀b'], expected: 'b😀a' },
    { name: 'palindrome', export: 'reverse', args: ['level'], expected: 'level', hidden: true },
  ],
};
export const REVERSE_TS =
  'export function reverse(s: string): string {\n  return Array.from(s).reverse().join("");\n}\n';

/** An accepted submission, once judged (programs queue behind others on a busy machine). */
async function judged(agent: TestAgent, res: ApiResponse) {
  expect(res.status).toBe(201);
  return waitForSubmission(server, agent.token, res.body.data.id, ['complete', 'failed'], 240_000);
}

async function counted(sessionId: string): Promise<number> {
  const res = await server.deps.db.query('SELECT count(*)::int AS n FROM submissions WHERE session_id = $1', [
    sessionId,
  ]);
  return res.rows[0].n;
}

describe('the body language', () => {
  let agent: TestAgent;
  let challengeId: string;
  let sessionId: string;
  beforeAll(async () => {
    agent = await newAgent(server);
    challengeId = await newChallenge(server, { judge: SUM_JUDGE as never, max_submissions_per_session: 3 });
    sessionId = await sessionFor(server, agent, challengeId);
  });

  test('pasted Python with language "python" (no fence, no file) scores 100; an alias works too', async () => {
    const plain = await submit(server, agent.token, sessionId, { content: SUM_PY, language: 'python' });
    const fenced = await submit(server, agent.token, sessionId, {
      content: `\`\`\`python\n${SUM_PY}\`\`\``,
      language: 'py',
    });
    for (const res of [plain, fenced]) {
      const done = await judged(agent, res);
      expect(done.result).toMatchObject({ final_score: 100 });
      expect(done.language).toEqual(expect.any(String));
    }
  });

  test('refused at submission, counting against nothing: empty, no language, an unknown or disallowed one', async () => {
    const before = await counted(sessionId);
    expectError(
      await submit(server, agent.token, sessionId, { content: '' }),
      400,
      'VALIDATION_ERROR',
      /nothing to judge/,
    );
    expectError(
      await submit(server, agent.token, sessionId, { content: 'print(1)' }),
      400,
      'VALIDATION_ERROR',
      /no language.*allowed: python, cpp/,
    );
    expectError(
      await submit(server, agent.token, sessionId, { content: 'x', language: 'cobol' }),
      400,
      'VALIDATION_ERROR',
      /unknown language "cobol".*allowed: python, cpp/,
    );
    expectError(
      await submit(server, agent.token, sessionId, { content: 'fn main(){}', language: 'rust' }),
      400,
      'VALIDATION_ERROR',
      /rust is not allowed.*allowed: python, cpp/,
    );
    // The file's own language wins over the body's; its extension comes after the body's.
    expectError(
      await submit(server, agent.token, sessionId, {
        content: '',
        language: 'python',
        files: [{ path: 'main.py', content: 'x', language: 'go' }],
      }),
      400,
      'VALIDATION_ERROR',
      /go is not allowed/,
    );
    expect(await counted(sessionId)).toBe(before);
    // The quota (3 per session) still has room for the one that follows: nothing above counted.
    const ok = await submit(server, agent.token, sessionId, {
      content: '',
      language: 'python',
      files: [{ path: 'solution/main.txt', content: SUM_PY }],
    });
    const done = await judged(agent, ok);
    expect(done.result).toMatchObject({ final_score: 100 });
  });
});

describe('file paths', () => {
  let agent: TestAgent;
  let sessionId: string;
  beforeAll(async () => {
    agent = await newAgent(server);
    const challengeId = await newChallenge(server, { judge: SUM_JUDGE as never });
    sessionId = await sessionFor(server, agent, challengeId);
  });

  test.each([
    ['/etc/main.py', /relative/],
    ['C:/main.py', /relative/],
    ['../main.py', /'\.' or '\.\.' segments/],
    ['src/../main.py', /'\.' or '\.\.' segments/],
    ['./main.py', /'\.' or '\.\.' segments/],
    ['a//main.py', /empty segments/],
    ['src/', /empty segments/],
    ['src\\main.py', /not \\/],
    ['a\u0001b.py', /control characters/],
    ['a\u007fb.py', /control characters/],
  ])('%j → 400 VALIDATION_ERROR', async (badPath, message) => {
    const res = await submit(server, agent.token, sessionId, {
      content: '',
      files: [{ path: badPath, content: SUM_PY }],
    });
    expectError(res, 400, 'VALIDATION_ERROR', message);
  });

  test('duplicates → 400; relative paths are kept as sent, the shallowest main.<ext> is the entry', async () => {
    expectError(
      await submit(server, agent.token, sessionId, {
        content: '',
        files: [
          { path: 'src/main.py', content: SUM_PY },
          { path: 'src/main.py', content: SUM_PY },
        ],
      }),
      400,
      'VALIDATION_ERROR',
      /duplicate path src\/main\.py/,
    );
    const res = await submit(server, agent.token, sessionId, {
      content: '',
      files: [
        { path: 'deep/er/main.py', content: 'print("wrong entry")\n' },
        { path: 'app/main.py', content: SUM_PY },
        { path: 'app/util/helpers.py', content: '# not the entry\n' },
      ],
    });
    const done = await judged(agent, res);
    expect(done.files.map((f: { path: string }) => f.path)).toEqual([
      'deep/er/main.py',
      'app/main.py',
      'app/util/helpers.py',
    ]);
    expect(done.result).toMatchObject({ final_score: 100 });
    const breakdown = await server.request('GET', `/api/v1/submissions/${res.body.data.id}/breakdown`, {
      auth: agent.token,
    });
    expect(breakdown.body.data.details.entry).toBe('app/main.py');
  });
});

describe('a tests judge with an entry (the README demo)', () => {
  let agent: TestAgent;
  let challengeId: string;
  let sessionId: string;
  beforeAll(async () => {
    agent = await newAgent(server);
    challengeId = await newChallenge(server, { judge: REVERSE_JUDGE as never });
    sessionId = await sessionFor(server, agent, challengeId);
  });

  test('judge_public.entry names the file; null where none is configured', async () => {
    const res = await server.request('GET', `/api/v1/challenges/${challengeId}`);
    expect(res.body.data.judge_public).toMatchObject({ kind: 'tests', entry: 'src/solution.ts' });
    const other = await newChallenge(server, { judge: { ...REVERSE_JUDGE, entry: undefined } as never });
    const none = await server.request('GET', `/api/v1/challenges/${other}`);
    expect(none.body.data.judge_public.entry).toBeNull();
  });

  test('the entry file missing (a base name only, or content alone) is refused and not counted', async () => {
    for (const body of [
      { content: '', files: [{ path: 'solution.ts', content: REVERSE_TS }] },
      { content: REVERSE_TS, language: 'typescript' },
    ]) {
      expectError(
        await submit(server, agent.token, sessionId, body),
        400,
        'VALIDATION_ERROR',
        /entry file src\/solution\.ts is missing/,
      );
    }
    expectError(
      await submit(server, agent.token, sessionId, {
        content: '',
        language: 'python',
        files: [{ path: 'src/solution.ts', content: REVERSE_TS }],
      }),
      400,
      'VALIDATION_ERROR',
      /python is not allowed.*allowed: javascript, typescript/,
    );
    expect(await counted(sessionId)).toBe(0);
  });

  test('src/solution.ts under its folder scores 100', async () => {
    const res = await submit(server, agent.token, sessionId, {
      content: '',
      files: [{ path: 'src/solution.ts', content: REVERSE_TS }],
    });
    const done = await judged(agent, res);
    expect(done.result).toMatchObject({ final_score: 100 });
  });
});
