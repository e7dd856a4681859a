import {
  cutUtf8,
  judgePublicView,
  PROGRAM_LANGUAGE_IDS,
  PUBLIC_TEST_DATA_LIMIT,
} from '../../../src/judging/public-view';

const programJudge = {
  kind: 'program',
  languages: ['python', 'c'],
  time_limit_ms: 1500,
  memory_mb: 128,
  compare: 'tokens',
  tests: [
    { name: 'sample', stdin: '1 2\n', expected_stdout: '3\n' },
    { name: 'big', weight: 3, stdin: 'é'.repeat(3000), expected_stdout: '6000\n' },
    { name: 'hidden-one', hidden: true, stdin: 'HIDDEN-STDIN', expected_stdout: 'HIDDEN-EXPECTED' },
  ],
};

describe('judgePublicView', () => {
  test('program: languages, limits with defaults, visible tests only, data cut at 4 KB on a character boundary', () => {
    const view = judgePublicView(programJudge);
    expect(view).toMatchObject({
      kind: 'program',
      languages: ['python', 'c'],
      limits: { time_limit_ms: 1500, memory_mb: 128, compare: 'tokens', float_tolerance: 1e-6 },
      hidden_test_count: 1,
      criteria: [],
    });
    expect(view.tests.map((t) => t.name)).toEqual(['sample', 'big']);
    expect(view.tests[0]).toEqual({
      name: 'sample',
      weight: 1,
      stdin: '1 2\n',
      expected_stdout: '3\n',
      truncated: false,
    });
    const big = view.tests[1] as { stdin: string; truncated: boolean };
    expect(big.truncated).toBe(true);
    expect(Buffer.byteLength(big.stdin)).toBeLessThanOrEqual(PUBLIC_TEST_DATA_LIMIT);
    expect(big.stdin).toBe('é'.repeat(PUBLIC_TEST_DATA_LIMIT / 2)); // 2 bytes each: no half character
    expect(JSON.stringify(view)).not.toContain('HIDDEN');
  });

  test('program defaults: every language, DESIGN.md limits and comparison', () => {
    expect(judgePublicView({ kind: 'program', tests: [] })).toMatchObject({
      languages: [...PROGRAM_LANGUAGE_IDS],
      limits: { time_limit_ms: 2000, memory_mb: 256, compare: 'lines', float_tolerance: 1e-6 },
    });
  });

  test('tests: the configured entry is public (null when none)', () => {
    expect(judgePublicView({ kind: 'tests', entry: 'src/solution.ts', tests: [] }).entry).toBe(
      'src/solution.ts',
    );
    expect(judgePublicView({ kind: 'tests', tests: [] }).entry).toBeNull();
    expect(judgePublicView({ kind: 'program', entry: 'x', tests: [] }).entry).toBeNull();
  });

  test('http: the kind only, never the grader url or headers', () => {
    const view = judgePublicView({
      kind: 'http',
      url: 'https://grader.internal/judge',
      headers: { authorization: 'Bearer s3cret' },
    });
    expect(view).toEqual({
      kind: 'http',
      languages: null,
      entry: null,
      limits: null,
      tests: [],
      hidden_test_count: 0,
      criteria: [],
      hidden_criteria_count: 0,
    });
  });

  test.each([null, 'text', 42, [], { kind: 'program', tests: 'nope' }])('never throws on %p', (config) => {
    expect(() => judgePublicView(config)).not.toThrow();
  });

  test('cutUtf8 leaves short text whole', () => {
    expect(cutUtf8('abc', 3)).toEqual({ text: 'abc', cut: false });
    expect(cutUtf8('abcd', 3)).toEqual({ text: 'abc', cut: true });
    expect(cutUtf8('a€', 3)).toEqual({ text: 'a', cut: true });
  });
});
