/** Issue 40: the result page shows a compile error once, with the compiler's message, and no row per test. */
import { verdictHtml } from '../../../../../src/api/pages/accounts/view';
import { verdictView } from '../../../../../src/lib/verdict-rows';

const tests = (verdict: string) => [
  { name: 'small', hidden: false, private: false, verdict, time_ms: 0, memory_kb: 0, stdout_excerpt: '' },
  { name: 'big', hidden: true, private: false, verdict, time_ms: 0, memory_kb: 0 },
];
const judgePublic = { tests: [{ name: 'small', stdin: '1 2\n', expected_stdout: '3\n' }] };

test('a compile error: the message once, given back, no verdict table and no test opened', () => {
  const page = verdictHtml(
    verdictView(
      {
        details: {
          tests: tests('compile_error'),
          compile_output: 'main.c:1:8: error: <boom>',
          counts_against_limits: false,
        },
      },
      judgePublic,
    ),
  ).toString();
  expect(page).toContain('id="compile-error"');
  expect(page).toContain('counts against no submission limit');
  expect(page.split('main.c:1:8: error: &lt;boom&gt;')).toHaveLength(2);
  expect(page).not.toContain('verdict-table');
  expect(page).not.toContain('<details');
});

test('a wrong answer keeps its table and opens the first failing test', () => {
  const page = verdictHtml(
    verdictView({ details: { tests: tests('wrong_answer') } }, judgePublic),
  ).toString();
  expect(page).toContain('id="verdict-table"');
  expect(page).toContain('<details id="test-1" open>');
  expect(page).not.toContain('id="compile-error"');
});
