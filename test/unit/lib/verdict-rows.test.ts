/**
 * Issue 40: a compile error is shown once (the compiler's message), not as a row per test; the
 * API's breakdown keeps its rows. And what counts against the submission limits.
 */
import { countsAgainstLimits } from '../../../src/domain/submissions/rules';
import { verdictView, verdictWord } from '../../../src/lib/verdict-rows';

const test2 = (verdict: string) => [
  { name: 'small', hidden: false, private: false, verdict, time_ms: 0, memory_kb: 0 },
  { name: 'big', hidden: true, private: false, verdict, time_ms: 0, memory_kb: 0 },
];

test('a compile error: the message once, no row per test, no failing test opened', () => {
  const view = verdictView(
    {
      final_score: 0,
      criteria: [],
      details: {
        tests: test2('compile_error'),
        compile_output: 'main.c:1: error: boom',
        counts_against_limits: false,
      },
    },
    { tests: [{ name: 'small', stdin: '1 2\n', expected_stdout: '3\n' }] },
  );
  expect(view).toMatchObject({
    compileError: true,
    givenBack: true,
    rows: [],
    firstFailing: -1,
    compileMessage: 'main.c:1: error: boom',
  });
});

test('a toolchain crash is a compile error that stays charged; a wrong answer keeps its rows', () => {
  const crashed = verdictView({
    details: {
      tests: test2('compile_error'),
      compile_output: 'the compiler was killed',
      counts_against_limits: true,
    },
  });
  expect(crashed).toMatchObject({ compileError: true, givenBack: false, rows: [] });
  const wrong = verdictView({ details: { tests: test2('wrong_answer') } });
  expect(wrong.compileError).toBe(false);
  expect(wrong.rows.map((row) => row.verdict)).toEqual(['wrong answer', 'wrong answer']);
});

test('only a compile error the judge marks is given back to the submission limits', () => {
  expect(countsAgainstLimits({ details: { counts_against_limits: false } })).toBe(false);
  expect(countsAgainstLimits({ details: { counts_against_limits: true } })).toBe(true);
  expect(countsAgainstLimits({ details: { tests: [] } })).toBe(true);
  expect(countsAgainstLimits({})).toBe(true);
});

describe('verdictWord: one word per result, as DOMjudge lists submissions (issue 41.7)', () => {
  const scored = { result_state: 'scored', summary: 'Passed 1 of 2' };
  const program = (verdicts: string[]) =>
    verdictView({
      details: {
        tests: verdicts.map((verdict, i) => ({
          name: `t${i}`,
          hidden: i > 0,
          verdict,
          time_ms: 1,
          memory_kb: 1,
        })),
      },
    });

  test('correct, the first failing test (hidden ones too), a compile error', () => {
    expect(verdictWord(program(['accepted', 'accepted']), scored)).toBe('correct');
    expect(verdictWord(program(['accepted', 'time_limit_exceeded', 'wrong_answer']), scored)).toBe(
      'time limit exceeded',
    );
    expect(verdictWord(program(['compile_error', 'compile_error']), scored)).toBe('compile error');
  });

  test("a tests judge's failed test is a wrong answer, its hidden ones counted", () => {
    const visible = verdictView({ details: { tests: [{ name: 'a', passed: false }] } });
    expect(verdictWord(visible, scored)).toBe('wrong answer');
    const hidden = verdictView({
      details: { tests: [{ name: 'a', passed: true }] },
      hidden_summary: { hidden_passed: 1, hidden_total: 2 },
    });
    expect(verdictWord(hidden, scored)).toBe('wrong answer');
  });

  test('a judge failure or disqualification says so; a judge without tests says its summary', () => {
    expect(verdictWord(program(['accepted']), { result_state: 'failed', summary: '' })).toBe(
      'judging failed',
    );
    expect(verdictWord(program(['accepted']), { result_state: 'disqualified', summary: '' })).toBe(
      'disqualified',
    );
    expect(verdictWord(verdictView({ criteria: [] }), { result_state: 'scored', summary: 'HTTP 200' })).toBe(
      'HTTP 200',
    );
  });
});
