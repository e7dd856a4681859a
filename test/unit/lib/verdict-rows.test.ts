/**
 * Issue 40: a compile error is shown once (the compiler's message), not as a row per test; the
 * API's breakdown keeps its rows. And what counts against the submission limits.
 */
import { countsAgainstLimits } from '../../../src/domain/submissions/rules';
import { verdictView } from '../../../src/lib/verdict-rows';

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
