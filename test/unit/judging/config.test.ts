import { InvalidJudgeConfigError, judgeConfigSchema, runJudge } from '../../../src/judging';
import { findNestedQuantifier } from '../../../src/judging/regex-safety';

function issuesOf(config: unknown): string[] {
  const result = judgeConfigSchema.safeParse(config);
  if (result.success) return [];
  return result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

const rubric = (criteria: unknown[]) => ({ kind: 'rubric', criteria });
const criterion = (check: unknown, extra: Record<string, unknown> = {}) => ({
  name: 'c',
  weight: 1,
  check,
  ...extra,
});
const testCase = (extra: Record<string, unknown> = {}) => ({
  name: 't',
  export: 'f',
  args: [],
  expected: 1,
  ...extra,
});

describe('judgeConfigSchema: accepted shapes and defaults', () => {
  it('applies rubric defaults', () => {
    const parsed = judgeConfigSchema.parse(
      rubric([
        { name: 'exact', check: { type: 'exact', value: 'x' } },
        { name: 'contains', check: { type: 'contains', value: 'x' } },
        { name: 'regex', check: { type: 'regex', pattern: '^x+$' } },
        { name: 'numeric', check: { type: 'numeric', value: 1 } },
        { name: 'length', check: { type: 'length', min: 1 } },
      ]),
    );
    expect(parsed).toEqual({
      kind: 'rubric',
      criteria: [
        {
          name: 'exact',
          weight: 1,
          hidden: false,
          private: false,
          check: { type: 'exact', value: 'x', case_sensitive: true, trim: true },
        },
        {
          name: 'contains',
          weight: 1,
          hidden: false,
          private: false,
          check: { type: 'contains', value: 'x', case_sensitive: true },
        },
        {
          name: 'regex',
          weight: 1,
          hidden: false,
          private: false,
          check: { type: 'regex', pattern: '^x+$', flags: '' },
        },
        {
          name: 'numeric',
          weight: 1,
          hidden: false,
          private: false,
          check: { type: 'numeric', value: 1, tolerance: 0 },
        },
        { name: 'length', weight: 1, hidden: false, private: false, check: { type: 'length', min: 1 } },
      ],
    });
  });

  it('applies tests and http defaults', () => {
    expect(judgeConfigSchema.parse({ kind: 'tests', tests: [testCase()] })).toEqual({
      kind: 'tests',
      timeout_ms_per_test: 2000,
      memory_mb: 64,
      tests: [{ name: 't', export: 'f', args: [], expected: 1, hidden: false, private: false, weight: 1 }],
    });
    expect(judgeConfigSchema.parse({ kind: 'http', url: 'https://grader.example.com/grade' })).toEqual({
      kind: 'http',
      url: 'https://grader.example.com/grade',
      timeout_ms: 10000,
    });
  });
});

describe('judgeConfigSchema: rejections', () => {
  it.each<[string, unknown, RegExp]>([
    ['unknown kind', { kind: 'llm' }, /kind: Invalid discriminator value/],
    [
      'unknown top-level key',
      { ...rubric([criterion({ type: 'contains', value: 'x' })]), extra: 1 },
      /Unrecognized key/,
    ],
    [
      'unknown criterion key',
      rubric([criterion({ type: 'contains', value: 'x' }, { points: 3 })]),
      /Unrecognized key/,
    ],
    [
      'unknown check key',
      rubric([criterion({ type: 'contains', value: 'x', fuzzy: true })]),
      /Unrecognized key/,
    ],
    ['unknown check type', rubric([criterion({ type: 'llm', value: 'x' })]), /Invalid discriminator value/],
    ['no criteria', rubric([]), /criteria: Array must contain at least 1/],
    [
      'too many criteria',
      rubric(
        Array.from({ length: 51 }, (_, i) => ({ name: `c${i}`, check: { type: 'contains', value: 'x' } })),
      ),
      /criteria: Array must contain at most 50/,
    ],
    [
      'duplicate criterion names',
      rubric([criterion({ type: 'contains', value: 'x' }), criterion({ type: 'contains', value: 'y' })]),
      /criteria.1.name: duplicate name "c"/,
    ],
    [
      'zero weight',
      rubric([criterion({ type: 'contains', value: 'x' }, { weight: 0 })]),
      /weight: Number must be greater than 0/,
    ],
    ['negative weight', rubric([criterion({ type: 'contains', value: 'x' }, { weight: -1 })]), /weight/],
    [
      'empty name',
      rubric([criterion({ type: 'contains', value: 'x' }, { name: '   ' })]),
      /name: String must contain at least 1/,
    ],
    ['empty contains value', rubric([criterion({ type: 'contains', value: '' })]), /value/],
    [
      'invalid regex',
      rubric([criterion({ type: 'regex', pattern: '(' })]),
      /check.pattern: Invalid regular expression/,
    ],
    [
      'nested quantifier',
      rubric([criterion({ type: 'regex', pattern: '(a+)+$' })]),
      /check.pattern: pattern may backtrack/,
    ],
    ['stateful regex flag', rubric([criterion({ type: 'regex', pattern: 'a', flags: 'g' })]), /check.flags/],
    [
      'duplicate regex flag',
      rubric([criterion({ type: 'regex', pattern: 'a', flags: 'ii' })]),
      /duplicate regex flag/,
    ],
    [
      'overlong pattern',
      rubric([criterion({ type: 'regex', pattern: 'a'.repeat(501) })]),
      /check.pattern: String must contain at most 500/,
    ],
    ['negative tolerance', rubric([criterion({ type: 'numeric', value: 1, tolerance: -1 })]), /tolerance/],
    ['non-numeric value', rubric([criterion({ type: 'numeric', value: '1' })]), /value: Expected number/],
    ['length without bounds', rubric([criterion({ type: 'length' })]), /length check needs min or max/],
    [
      'length min above max',
      rubric([criterion({ type: 'length', min: 5, max: 2 })]),
      /min must not exceed max/,
    ],
    ['no tests', { kind: 'tests', tests: [] }, /tests: Array must contain at least 1/],
    [
      'too many tests',
      { kind: 'tests', tests: Array.from({ length: 201 }, (_, i) => testCase({ name: `t${i}` })) },
      /tests: Array must contain at most 200/,
    ],
    ['duplicate test names', { kind: 'tests', tests: [testCase(), testCase()] }, /duplicate name "t"/],
    [
      'timeout above 10 s',
      { kind: 'tests', timeout_ms_per_test: 10_001, tests: [testCase()] },
      /timeout_ms_per_test/,
    ],
    ['memory above 256 MB', { kind: 'tests', memory_mb: 512, tests: [testCase()] }, /memory_mb/],
    [
      'export not an identifier',
      { kind: 'tests', tests: [testCase({ export: 'a.b' })] },
      /export must be a JavaScript identifier/,
    ],
    ['missing expected', { kind: 'tests', tests: [{ name: 't', export: 'f', args: [] }] }, /expected/],
    ['args not an array', { kind: 'tests', tests: [testCase({ args: 1 })] }, /args: Expected array/],
    [
      'entry outside the submission',
      { kind: 'tests', entry: '../x.js', tests: [testCase()] },
      /entry must stay inside/,
    ],
    ['unknown test key', { kind: 'tests', tests: [testCase({ stdin: 'x' })] }, /Unrecognized key/],
    ['non-http url', { kind: 'http', url: 'file:///etc/passwd' }, /url must be http or https/],
    ['not a url', { kind: 'http', url: 'grader' }, /url: Invalid url/],
    ['timeout too long', { kind: 'http', url: 'http://g.test/', timeout_ms: 600_000 }, /timeout_ms/],
    [
      'header with newline',
      { kind: 'http', url: 'http://g.test/', headers: { 'x-a': 'a\r\nb: c' } },
      /line breaks/,
    ],
    [
      'invalid header name',
      { kind: 'http', url: 'http://g.test/', headers: { 'bad name': 'x' } },
      /invalid header name/,
    ],
    [
      'reserved header',
      { kind: 'http', url: 'http://g.test/', headers: { Host: 'x' } },
      /managed by the client/,
    ],
  ])('rejects %s', (_label, config, expected) => {
    const issues = issuesOf(config);
    expect(issues.join('\n')).toMatch(expected);
  });

  it('makes runJudge throw InvalidJudgeConfigError (not retryable) for a bad stored config', async () => {
    const judging = runJudge({ kind: 'rubric', criteria: [] } as never, { content: 'x', files: [] });
    await expect(judging).rejects.toBeInstanceOf(InvalidJudgeConfigError);
    await expect(judging).rejects.toMatchObject({
      retryable: false,
      message: expect.stringMatching(/^invalid judge config at criteria/),
    });
  });
});

describe('findNestedQuantifier', () => {
  it.each([
    '(a+)+',
    '(a*)*',
    '(\\w+\\s?)*$',
    '(?:x{2,})+',
    '((ab)+c)*',
    '((a+))+',
    '(?<word>\\w+)+',
    '([a-z]+)*',
  ])('flags %s', (pattern) => {
    expect(findNestedQuantifier(pattern)).not.toBeNull();
  });

  it.each([
    '^a+b+$',
    '(ab)+',
    '(a+)?',
    '(a+){1}',
    '[(a+)]+',
    '\\(a+\\)+',
    '(foo|bar)+',
    '^\\d{3}-\\d{4}$',
    'x{2,}(y)+',
  ])('accepts %s', (pattern) => {
    expect(findNestedQuantifier(pattern)).toBeNull();
  });
});
