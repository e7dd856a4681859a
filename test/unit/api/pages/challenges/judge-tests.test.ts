/**
 * Rows to add tests and the import of a tests file (src/api/pages/challenges/judge-tests.ts): what
 * the rows and a file become in the judge config, and how bad ones are told (by row, by file
 * line; nothing changed). The pages and routes: console.test.ts.
 */
import {
  EMPTY_ROW,
  MAX_TEST_ROWS,
  addTestsToJudge,
  applyTypedTests,
  casesOfFile,
  casesOfRows,
  testsStateOf,
  withOneMoreRow,
} from '../../../../../src/api/pages/challenges/judge-tests';
import { judgeConfigSchema } from '../../../../../src/judging';

const PROGRAM = JSON.stringify({
  kind: 'program',
  tests: [{ name: 'sample', stdin: '1 2\n', expected_stdout: '3\n' }],
});
const TESTS = JSON.stringify({
  kind: 'tests',
  entry: 'src/solution.ts',
  tests: [{ name: 'word', export: 'reverse', args: ['abc'], expected: 'cba' }],
});

const form = (fields: Record<string, string[]>) => ({ fields, files: {} });

describe('the rows as posted', () => {
  test('rows are aligned by position, textarea CRLF becomes LF, at least one row, one more on "Add a row"', () => {
    const state = testsStateOf(
      form({
        test_name: ['', 'big'],
        test_input: ['1 2\r\n', '5 5'],
        test_expected: ['3\r\n', '10'],
        test_visibility: ['visible', 'hidden'],
        test_export: [' reverse '],
      }),
    );
    expect(state).toEqual({
      rows: [
        { name: '', input: '1 2\n', expected: '3\n', visibility: 'visible' },
        { name: 'big', input: '5 5', expected: '10', visibility: 'hidden' },
      ],
      exportName: 'reverse',
    });
    expect(testsStateOf(null).rows).toEqual([EMPTY_ROW]);
    expect(withOneMoreRow(state).rows).toHaveLength(3);
    expect(withOneMoreRow(state).rows[2]).toEqual(EMPTY_ROW);
    const full = { rows: Array.from({ length: MAX_TEST_ROWS }, () => ({ ...EMPTY_ROW })), exportName: '' };
    expect(withOneMoreRow(full).rows).toHaveLength(MAX_TEST_ROWS);
  });

  test('program rows: input and expected as typed; blank rows skipped; names given or "test N"', () => {
    const rows = [
      { name: '', input: '2 2\n', expected: '4\n', visibility: 'visible' as const },
      { ...EMPTY_ROW },
      { name: 'secret', input: '', expected: '0\n', visibility: 'hidden' as const },
    ];
    const out = applyTypedTests(PROGRAM, { rows, exportName: '' }, undefined);
    expect(out.errors).toEqual({});
    expect(out.added).toEqual({ rows: 2, file: 0 });
    const judge = JSON.parse(out.judgeText);
    expect(judge.tests).toEqual([
      { name: 'sample', stdin: '1 2\n', expected_stdout: '3\n' },
      { name: 'test 2', stdin: '2 2\n', expected_stdout: '4\n' },
      { name: 'secret', hidden: true, stdin: '', expected_stdout: '0\n' },
    ]);
    expect(judgeConfigSchema.safeParse(judge).success).toBe(true);
    // The rows went into the box: one empty row to type the next.
    expect(out.state.rows).toEqual([EMPTY_ROW]);
  });

  test('tests rows are JSON: the list of arguments and the value returned; the export as chosen, else the last test’s', () => {
    const rows = [{ name: '', input: '["hello"]', expected: '"olleh"', visibility: 'visible' as const }];
    const chosen = JSON.parse(applyTypedTests(TESTS, { rows, exportName: 'flip' }, undefined).judgeText);
    expect(chosen.tests[1]).toEqual({ name: 'test 2', export: 'flip', args: ['hello'], expected: 'olleh' });
    const inherited = JSON.parse(applyTypedTests(TESTS, { rows, exportName: '' }, undefined).judgeText);
    expect(inherited.tests[1].export).toBe('reverse');
  });

  test('bad rows: each error beside its row (by index), the box unchanged, the rows kept as typed', () => {
    const rows = [
      { name: 'ok', input: '["a"]', expected: '"a"', visibility: 'visible' as const },
      { name: '', input: 'hello', expected: '"x"', visibility: 'visible' as const },
      { name: '', input: '["b"]', expected: '', visibility: 'visible' as const },
    ];
    const out = applyTypedTests(TESTS, { rows, exportName: '' }, undefined);
    expect(out.judgeText).toBe(TESTS);
    expect(out.state.rows).toBe(rows);
    expect(Object.keys(out.errors).sort()).toEqual(['test_row_1', 'test_row_2']);
    expect(out.errors.test_row_1[0]).toMatch(/^input: not valid JSON \(the list of arguments/);
    expect(out.errors.test_row_2).toEqual(['expected: required (JSON, e.g. "cba")']);
  });

  test("the judge schema's own complaints come back by row: a non-list input, a bad export, a duplicate name", () => {
    const rows = [
      { name: '', input: '["x"]', expected: '"x"', visibility: 'visible' as const },
      { name: '', input: '"x"', expected: '"x"', visibility: 'visible' as const },
    ];
    const out = applyTypedTests(TESTS, { rows, exportName: 'not an identifier' }, undefined);
    // Rows that cannot be read are told first (the schema sees only readable rows).
    expect(out.errors).toEqual({ test_row_1: ['input: the list of arguments in brackets, e.g. ["x"]'] });
    expect(out.judgeText).toBe(TESTS);
    const badExport = applyTypedTests(
      TESTS,
      { rows: rows.slice(0, 1), exportName: 'not an identifier' },
      undefined,
    );
    expect(badExport.errors).toEqual({
      test_row_0: ['row 1: export (the function called): export must be a JavaScript identifier'],
    });
    const duplicate = applyTypedTests(
      TESTS,
      { rows: [{ name: 'word', input: '["x"]', expected: '"x"', visibility: 'visible' }], exportName: '' },
      undefined,
    );
    expect(duplicate.errors).toEqual({ test_row_0: ['row 1: name: duplicate name "word"'] });
  });

  test('rows on a config that is not tests or program, or not JSON: one error for the rows, nothing changed', () => {
    const rows = [{ name: '', input: '1', expected: '1', visibility: 'visible' as const }];
    const rubric = JSON.stringify({ kind: 'rubric', criteria: [] });
    expect(applyTypedTests(rubric, { rows, exportName: '' }, undefined).errors).toEqual({
      test_rows: ['tests can be added to a "tests" or "program" judge config; the config above is neither'],
    });
    expect(applyTypedTests('{"kind":', { rows, exportName: '' }, undefined).errors.test_rows[0]).toMatch(
      /^the judge config above is not valid JSON/,
    );
    // Nothing typed: nothing checked, whatever the box holds.
    expect(applyTypedTests('{"kind":', { rows: [EMPTY_ROW], exportName: '' }, undefined).errors).toEqual({});
  });

  test('casesOfRows keeps the row index of each case (errors land on their row)', () => {
    const { cases, errors } = casesOfRows('program', [
      { ...EMPTY_ROW },
      { name: '', input: 'x', expected: 'y', visibility: 'visible' },
    ]);
    expect(cases.map((c) => c.row)).toEqual([1]);
    expect(errors.size).toBe(0);
  });
});

describe('importing a tests file', () => {
  test('JSON Lines and a JSON list: {input, expected[, visible][, name]}; visible defaults to true', () => {
    const jsonl =
      '{"input": "4 5\\n", "expected": "9\\n"}\n\n{"input": "0 0\\n", "expected": "0\\n", "visible": false, "name": "zeros"}\n';
    const out = applyTypedTests(
      PROGRAM,
      { rows: [EMPTY_ROW], exportName: '' },
      { filename: 'more.jsonl', content: jsonl },
    );
    expect(out.errors).toEqual({});
    expect(out.added).toEqual({ rows: 0, file: 2 });
    expect(JSON.parse(out.judgeText).tests.slice(1)).toEqual([
      { name: 'test 2', stdin: '4 5\n', expected_stdout: '9\n' },
      { name: 'zeros', hidden: true, stdin: '0 0\n', expected_stdout: '0\n' },
    ]);
    const list = casesOfFile(
      'tests',
      'cases.json',
      '\uFEFF[{"input": ["ab"], "expected": "ba", "export": "rev"}]',
    );
    expect(list).toEqual({
      ok: true,
      value: [
        { where: 'case 1', name: undefined, input: ['ab'], expected: 'ba', visible: true, exportName: 'rev' },
      ],
    });
  });

  test('bad files: an error naming the line or case, nothing imported', () => {
    const cases: [string, string, RegExp][] = [
      ['', 'empty', /^t\.jsonl is empty/],
      ['{"input": "1"}\n{oops\n', 'line', /line 2: not valid JSON/],
      ['[{"input": "1", "expected": 2}]', 'type', /^case 1: expected: the standard output, a string$/],
      [
        '[{"input": "1", "expected": "2", "stdin": "x"}]',
        'unknown',
        /^case 1: unknown field stdin \(allowed: name, input, expected, visible\)$/,
      ],
      ['[{"input": "1"}]', 'missing', /^case 1: expected: required$/],
      ['[1]', 'not an object', /^case 1: a case is an object/],
      ['[]', 'none', /holds no test/],
      ['{"input": "1", "expected": "1", "visible": "yes"}', 'visible', /^case 1: visible: true or false$/],
    ];
    for (const [content, label, pattern] of cases) {
      const out = applyTypedTests(
        PROGRAM,
        { rows: [EMPTY_ROW], exportName: '' },
        { filename: 't.jsonl', content },
      );
      expect([label, out.judgeText === PROGRAM]).toEqual([label, true]);
      expect([label, out.errors.tests_file?.some((m) => pattern.test(m))]).toEqual([label, true]);
    }
    expect(casesOfFile('tests', 'a.json', '[{"input": "abc", "expected": "cba"}]')).toEqual({
      ok: false,
      errors: ['case 1: input: the list of arguments, e.g. ["abc"]'],
    });
  });

  test('the whole config is bounded: a file that would pass 200 tests is refused; many bad lines are counted, not all listed', () => {
    const many = Array.from({ length: 201 }, (_, i) =>
      JSON.stringify({ input: `${i}`, expected: `${i}` }),
    ).join('\n');
    expect(casesOfFile('program', 'many.jsonl', many)).toEqual({
      ok: false,
      errors: ['many.jsonl holds 201 cases; a config holds at most 200 tests'],
    });
    const near = Array.from({ length: 200 }, (_, i) =>
      JSON.stringify({ input: `${i}`, expected: `${i}` }),
    ).join('\n');
    const over = applyTypedTests(
      PROGRAM,
      { rows: [EMPTY_ROW], exportName: '' },
      { filename: 'near.jsonl', content: near },
    );
    expect(over.errors.tests_file).toEqual([expect.stringMatching(/^tests: Array must contain at most 200/)]);
    const bad = Array.from({ length: 15 }, () => '{"input": 1, "expected": "1"}').join('\n');
    const out = casesOfFile('program', 'bad.jsonl', bad);
    expect(out.ok).toBe(false);
    if (!out.ok) {
      expect(out.errors).toHaveLength(11);
      expect(out.errors[10]).toBe('… and 5 more');
    }
  });

  test('addTestsToJudge keeps the rest of the config and picks free names', () => {
    const judge = JSON.stringify({
      kind: 'program',
      compare: 'tokens',
      tests: [
        { name: 'a', stdin: '', expected_stdout: '' },
        { name: 'test 2', stdin: '', expected_stdout: '' },
      ],
    });
    const out = addTestsToJudge(judge, [{ where: 'row 1', input: 'x', expected: 'y', visible: true }]);
    expect(out.ok).toBe(true);
    if (out.ok) {
      const parsed = JSON.parse(out.text);
      expect(parsed.compare).toBe('tokens');
      expect(parsed.tests[2].name).toBe('test 3');
    }
  });
});
