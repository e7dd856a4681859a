import { ApplicationFailure } from '@temporalio/common';
import { sweepIntervalMs, verdictsOnly } from '../../../../src/domain/submissions/rules';
import { toActivityFailure } from '../../../../src/domain/submissions/activities';
import { createSubmissionBody } from '../../../../src/api/schemas/submissions';
import { csvField, csvLine, decodeCursor, encodeCursor } from '../../../../src/domain/leaderboard';
import { artifactHash } from '../../../../src/domain/submissions/rules';
import { submissionWorkflowId } from '../../../../src/domain/submissions/contract';
import {
  GraderRejectedError,
  GraderUnavailableError,
  InvalidJudgeConfigError,
  SandboxUnavailableError,
} from '../../../../src/judging';

describe('leaderboard cursor', () => {
  test('round-trips the sort key exactly (opaque base64url)', () => {
    const key = {
      score: '87.25',
      reachedAt: new Date('2026-01-02T03:04:05.678Z'),
      agentId: '6f1c3b1e-8d0e-4c55-9a43-0d7f9e1c2b3a',
    };
    const cursor = encodeCursor(key);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toEqual(key);
  });

  test.each([
    ['not base64url', 'a+b/c='],
    ['not JSON', Buffer.from('nope').toString('base64url')],
    ['wrong arity', Buffer.from('["1","2"]').toString('base64url')],
    [
      'score over 100',
      Buffer.from(
        JSON.stringify(['100.01', '2026-01-01T00:00:00Z', '6f1c3b1e-8d0e-4c55-9a43-0d7f9e1c2b3a']),
      ).toString('base64url'),
    ],
    [
      'score with 3 decimals',
      Buffer.from(
        JSON.stringify(['1.234', '2026-01-01T00:00:00Z', '6f1c3b1e-8d0e-4c55-9a43-0d7f9e1c2b3a']),
      ).toString('base64url'),
    ],
    [
      'bad date',
      Buffer.from(JSON.stringify(['1', 'yesterday', '6f1c3b1e-8d0e-4c55-9a43-0d7f9e1c2b3a'])).toString(
        'base64url',
      ),
    ],
    [
      'bad uuid',
      Buffer.from(JSON.stringify(['1', '2026-01-01T00:00:00Z', "x' OR 1=1"])).toString('base64url'),
    ],
  ])('%s is a validation error', (_name, cursor) => {
    expect(() => decodeCursor(cursor)).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
  });
});

describe('CSV', () => {
  test.each([
    ['plain', 'plain'],
    [42.5, '42.5'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['=1+1', "'=1+1"],
    ['+cmd', "'+cmd"],
    ['-2', "'-2"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['=HYPERLINK("x", "y")', `"'=HYPERLINK(""x"", ""y"")"`],
  ])('%p → %p', (value, expected) => {
    expect(csvField(value)).toBe(expected);
  });

  test('lines end with CRLF; negative numbers stay numbers', () => {
    expect(csvLine([1, 'a', -3])).toBe('1,a,-3\r\n');
  });
});

describe('submission body', () => {
  test('accepts content with relative files', () => {
    expect(
      createSubmissionBody.safeParse({
        content: '',
        files: [{ path: 'src/a.ts', content: 'x', language: 'typescript' }],
      }).success,
    ).toBe(true);
  });

  test.each([
    ['windows absolute', 'C:\\evil.js'],
    ['backslash root', '\\evil.js'],
    ['dotdot with backslashes', 'a\\..\\..\\x'],
    ['NUL', 'a\u0000.js'],
    ['empty', ''],
    ['too long', 'a'.repeat(256)],
  ])('rejects a %s path', (_name, path) => {
    expect(createSubmissionBody.safeParse({ content: 'x', files: [{ path, content: '' }] }).success).toBe(
      false,
    );
  });

  test('counts bytes, not characters, toward the 1 MiB total', () => {
    const multibyte = '€'.repeat(350_000); // 1,050,000 bytes
    expect(
      createSubmissionBody.safeParse({ content: 'x', files: [{ path: 'a.txt', content: multibyte }] })
        .success,
    ).toBe(false);
  });
});

describe('artifact hash and workflow ids', () => {
  test('the hash depends on content, file paths, contents, languages and order', () => {
    const a = artifactHash('c', [{ path: 'a', content: '1' }]);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(artifactHash('c', [{ path: 'a', content: '1' }])).toBe(a);
    expect(artifactHash('c', [{ path: 'a', content: '1', language: 'js' }])).not.toBe(a);
    expect(artifactHash('c', [{ path: 'b', content: '1' }])).not.toBe(a);
    expect(artifactHash('d', [{ path: 'a', content: '1' }])).not.toBe(a);
    expect(
      artifactHash('c', [
        { path: 'a', content: '1' },
        { path: 'b', content: '' },
      ]),
    ).not.toBe(
      artifactHash('c', [
        { path: 'b', content: '' },
        { path: 'a', content: '1' },
      ]),
    );
  });

  test('one workflow id per judge run', () => {
    expect(submissionWorkflowId('u', 0)).toBe('submission-u');
    expect(submissionWorkflowId('u', 2)).toBe('submission-u-rejudge-2');
  });

  test('sweep interval: half the delay, within 250 ms..5 s', () => {
    expect(sweepIntervalMs(1000)).toBe(500);
    expect(sweepIntervalMs(10_000)).toBe(5000);
    expect(sweepIntervalMs(100)).toBe(250);
  });
});

describe('judge errors → Temporal failures', () => {
  test('grader unavailable is retryable and honours Retry-After (capped at 30 s)', () => {
    const failure = toActivityFailure(
      new GraderUnavailableError('grader answered 503', { status: 503, retryAfterMs: 120_000 }),
    ) as ApplicationFailure;
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.type).toBe('GraderUnavailableError');
    expect(failure.nextRetryDelay).toBe(30_000);
  });

  test('grader rejection and invalid config are not retryable', () => {
    for (const err of [
      new GraderRejectedError('grader answered 400', { status: 400 }),
      new InvalidJudgeConfigError('bad'),
    ]) {
      const failure = toActivityFailure(err) as ApplicationFailure;
      expect(failure.nonRetryable).toBe(true);
      expect(failure.message).toBe(err.message);
    }
  });

  test('sandbox unavailable is retryable; unknown errors pass through', () => {
    expect(
      (toActivityFailure(new SandboxUnavailableError('spawn failed')) as ApplicationFailure).nonRetryable,
    ).toBe(false);
    const other = new Error('boom');
    expect(toActivityFailure(other)).toBe(other);
  });

  test('an error that repeats on a retry (a value PostgreSQL refuses, a RangeError) is attempted at most twice', () => {
    const refused = Object.assign(new Error('unsupported Unicode escape sequence'), { code: '22P05' });
    const nul = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), {
      code: '22021',
    });
    const deep = new RangeError('Maximum call stack size exceeded');
    for (const err of [refused, nul, deep]) {
      const first = toActivityFailure(err, 1) as ApplicationFailure;
      expect(first).toBeInstanceOf(ApplicationFailure);
      expect({ type: first.type, nonRetryable: first.nonRetryable }).toEqual({
        type: 'DeterministicError',
        nonRetryable: false,
      });
      expect((toActivityFailure(err, 2) as ApplicationFailure).nonRetryable).toBe(true);
    }
    // Other database and network errors keep their retries.
    const lost = Object.assign(new Error('connection reset'), { code: 'ECONNRESET' });
    expect(toActivityFailure(lost, 2)).toBe(lost);
    const serialization = Object.assign(new Error('could not serialize'), { code: '40001' });
    expect(toActivityFailure(serialization, 2)).toBe(serialization);
  });
});

describe('an outcome that cannot be stored', () => {
  test('keeps the score, state and verdicts, drops what the program wrote, and says why', () => {
    const outcome = {
      score: 100,
      privateScore: null,
      resultState: 'scored' as const,
      summary: 'C: 1 of 1 tests accepted\u0000',
      criteria: [
        { name: 't1', weight: 1, score: 100, passed: true, feedback: 'accepted \u0000', hidden: false },
      ],
      details: {
        language: 'c',
        compile_output: 'warning \u0000',
        tests: [
          {
            name: 't1',
            hidden: false,
            private: false,
            verdict: 'accepted',
            time_ms: 3,
            memory_kb: 100,
            stdout_excerpt: '3\u0000',
            stderr_excerpt: '\uD800',
          },
        ],
      },
    };
    const kept = verdictsOnly(outcome, 'unsupported Unicode escape sequence [22P05]');
    expect(kept).toMatchObject({ score: 100, privateScore: null, resultState: 'scored' });
    expect(kept.summary).toContain('22P05');
    expect(kept.details).toEqual({
      reason: expect.stringContaining('only the verdicts were kept'),
      tests: [{ name: 't1', hidden: false, private: false, verdict: 'accepted', time_ms: 3, memory_kb: 100 }],
    });
    expect(kept.criteria).toEqual([
      { name: 't1', weight: 1, score: 100, passed: true, feedback: 'passed', hidden: false },
    ]);
    expect(JSON.stringify(kept)).not.toMatch(/\\u0000|\\ud800/i);
  });
});
