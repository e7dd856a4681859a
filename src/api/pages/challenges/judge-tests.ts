/**
 * Adding tests to a `tests` or `program` judge config from the console without writing JSON by
 * hand (issue 29, "rows to add tests, import tests from a file"): the rows typed under the judge
 * box (name, input, expected, visible or hidden) and a JSON or JSONL file of
 * `{input, expected[, visible][, name]}` cases become entries of the config's `tests`. The config
 * as merged is checked by the judge schema itself; its complaints about the new tests come back
 * by the row or file line they came from, and nothing changes when there is any. Rendering:
 * judge-editor-view.ts; routes: console-routes.ts.
 */
import { JUDGE_CONFIG_LIMITS, judgeConfigSchema } from '../../../judging';
import type { ParsedForm } from '../../form-body';

export type TestVisibility = 'visible' | 'hidden';

/** One row of the "Add tests" part of the form, as typed. */
export interface TestRowValues {
  name: string;
  input: string;
  expected: string;
  visibility: TestVisibility;
}

/** The rows as typed and the function the `tests` kind calls (its `export`). */
export interface JudgeTestsState {
  rows: TestRowValues[];
  exportName: string;
}

/** Kinds whose config has `tests` these rows add to. */
export type TestsKind = 'tests' | 'program';
export const isTestsKind = (kind: unknown): kind is TestsKind => kind === 'tests' || kind === 'program';

export const EMPTY_ROW: TestRowValues = { name: '', input: '', expected: '', visibility: 'visible' };
/** No more rows than a config can hold tests. */
export const MAX_TEST_ROWS = JUDGE_CONFIG_LIMITS.maxTests;
/** Error lines shown for one file or one set of rows; the rest is counted. */
const MAX_MESSAGES = 10;

export const emptyTestsState = (exportName = ''): JudgeTestsState => ({
  rows: [{ ...EMPTY_ROW }],
  exportName,
});

/** Browsers send a textarea's line breaks as CRLF; the tests compare LF. */
const lf = (text: string) => text.replace(/\r\n?/g, '\n');

/** The rows posted with the form (aligned by position: every row sends each of its four fields). */
export function testsStateOf(form: ParsedForm | null): JudgeTestsState {
  const fields = form?.fields ?? {};
  const names = fields.test_name ?? [];
  const inputs = fields.test_input ?? [];
  const expecteds = fields.test_expected ?? [];
  const visibilities = fields.test_visibility ?? [];
  const count = Math.min(
    MAX_TEST_ROWS,
    Math.max(names.length, inputs.length, expecteds.length, visibilities.length),
  );
  const rows: TestRowValues[] = [];
  for (let i = 0; i < count; i++)
    rows.push({
      name: names[i] ?? '',
      input: lf(inputs[i] ?? ''),
      expected: lf(expecteds[i] ?? ''),
      visibility: visibilities[i] === 'hidden' ? 'hidden' : 'visible',
    });
  if (rows.length === 0) rows.push({ ...EMPTY_ROW });
  return { rows, exportName: (fields.test_export?.[0] ?? '').trim() };
}

export const isBlankRow = (row: TestRowValues) =>
  row.name.trim() === '' && row.input.trim() === '' && row.expected.trim() === '';

/** The rows as typed plus one empty row (the "Add a row" button without script). */
export function withOneMoreRow(state: JudgeTestsState): JudgeTestsState {
  if (state.rows.length >= MAX_TEST_ROWS) return state;
  return { ...state, rows: [...state.rows, { ...EMPTY_ROW }] };
}

/** A test to add, before it is written in the kind's own fields; `where` names its origin. */
export interface NewTestCase {
  where: string;
  name?: string;
  input: unknown;
  expected: unknown;
  visible: boolean;
  exportName?: string;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; errors: string[] };

const capped = (errors: string[]): string[] =>
  errors.length <= MAX_MESSAGES
    ? errors
    : [...errors.slice(0, MAX_MESSAGES), `… and ${errors.length - MAX_MESSAGES} more`];

function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}

/**
 * The filled rows as new tests, or an error per row (by its 0-based index): for `program` the
 * input and expected are the standard input and output as typed; for `tests` they are JSON (the
 * list of arguments, the value returned).
 */
export function casesOfRows(
  kind: TestsKind,
  rows: TestRowValues[],
): { cases: { row: number; testCase: NewTestCase }[]; errors: Map<number, string[]> } {
  const cases: { row: number; testCase: NewTestCase }[] = [];
  const errors = new Map<number, string[]>();
  const fail = (row: number, message: string) => errors.set(row, [...(errors.get(row) ?? []), message]);
  rows.forEach((row, i) => {
    if (isBlankRow(row)) return;
    const where = `row ${i + 1}`;
    const name = row.name.trim() === '' ? undefined : row.name;
    const visible = row.visibility !== 'hidden';
    if (kind === 'program') {
      cases.push({ row: i, testCase: { where, name, input: row.input, expected: row.expected, visible } });
      return;
    }
    let args: unknown = [];
    if (row.input.trim() !== '') {
      const parsed = parseJsonText(row.input);
      if (!parsed.ok)
        fail(i, `input: not valid JSON (the list of arguments, e.g. ["abc"]): ${parsed.message}`);
      else if (!Array.isArray(parsed.value))
        fail(i, `input: the list of arguments in brackets, e.g. [${row.input.trim()}]`);
      else args = parsed.value;
    }
    let expected: unknown;
    if (row.expected.trim() === '') fail(i, 'expected: required (JSON, e.g. "cba")');
    else {
      const parsed = parseJsonText(row.expected);
      if (!parsed.ok) fail(i, `expected: not valid JSON (e.g. "cba" with its quotes): ${parsed.message}`);
      else expected = parsed.value;
    }
    if (!errors.has(i)) cases.push({ row: i, testCase: { where, name, input: args, expected, visible } });
  });
  return { cases, errors };
}

const FILE_KEYS = ['name', 'input', 'expected', 'visible'] as const;

/**
 * The cases of an uploaded file: a JSON array of `{input, expected[, visible][, name]}` (a single
 * such object too), or JSON Lines, one case a line (blank lines skipped). `tests` cases may also
 * name their `export`.
 */
export function casesOfFile(kind: TestsKind, filename: string, content: string): Outcome<NewTestCase[]> {
  const text = content.replace(/^\uFEFF/, '');
  if (text.trim() === '') return { ok: false, errors: [`${filename} is empty: no test to import`] };
  const items: { where: string; value: unknown }[] = [];
  const whole = parseJsonText(text);
  if (whole.ok && Array.isArray(whole.value))
    whole.value.forEach((value, i) => items.push({ where: `case ${i + 1}`, value }));
  else if (whole.ok) items.push({ where: 'case 1', value: whole.value });
  else {
    // Not one JSON document: JSON Lines.
    const errors: string[] = [];
    text.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      const parsed = parseJsonText(line);
      if (parsed.ok) items.push({ where: `line ${i + 1}`, value: parsed.value });
      else errors.push(`line ${i + 1}: not valid JSON: ${parsed.message}`);
    });
    if (errors.length)
      return {
        ok: false,
        errors: capped([
          `${filename} is neither a JSON document nor JSON Lines (one case a line)`,
          ...errors,
        ]),
      };
  }
  if (items.length === 0) return { ok: false, errors: [`${filename} holds no test`] };
  if (items.length > MAX_TEST_ROWS)
    return {
      ok: false,
      errors: [`${filename} holds ${items.length} cases; a config holds at most ${MAX_TEST_ROWS} tests`],
    };
  const allowed: readonly string[] = kind === 'tests' ? [...FILE_KEYS, 'export'] : FILE_KEYS;
  const errors: string[] = [];
  const cases: NewTestCase[] = [];
  for (const { where, value } of items) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      errors.push(`${where}: a case is an object {"input": …, "expected": …}`);
      continue;
    }
    const record = value as Record<string, unknown>;
    const unknown = Object.keys(record).filter((k) => !allowed.includes(k));
    const problems: string[] = [];
    if (unknown.length)
      problems.push(
        `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (allowed: ${allowed.join(', ')})`,
      );
    if (!('expected' in record)) problems.push('expected: required');
    if ('visible' in record && typeof record.visible !== 'boolean') problems.push('visible: true or false');
    if ('name' in record && typeof record.name !== 'string') problems.push('name: a string');
    if ('export' in record && typeof record.export !== 'string') problems.push('export: a string');
    if (kind === 'program') {
      if ('input' in record && typeof record.input !== 'string')
        problems.push('input: the standard input, a string');
      if ('expected' in record && typeof record.expected !== 'string')
        problems.push('expected: the standard output, a string');
    } else if ('input' in record && !Array.isArray(record.input))
      problems.push('input: the list of arguments, e.g. ["abc"]');
    if (problems.length) {
      errors.push(...problems.map((p) => `${where}: ${p}`));
      continue;
    }
    cases.push({
      where,
      name: record.name as string | undefined,
      input: record.input ?? (kind === 'program' ? '' : []),
      expected: record.expected,
      visible: record.visible !== false,
      exportName: record.export as string | undefined,
    });
  }
  if (errors.length) return { ok: false, errors: capped(errors) };
  return { ok: true, value: cases };
}

interface JudgeWithTests {
  kind: TestsKind;
  tests: Record<string, unknown>[];
  [key: string]: unknown;
}

/** The box's JSON when it is a tests or program config with a list of tests (else why not). */
export function judgeWithTestsOf(text: string): Outcome<JudgeWithTests> {
  const parsed = parseJsonText(text);
  if (!parsed.ok)
    return {
      ok: false,
      errors: [`the judge config above is not valid JSON (${parsed.message}); fix it before adding tests`],
    };
  const value = parsed.value as { kind?: unknown; tests?: unknown } | null;
  if (typeof value !== 'object' || value === null || !isTestsKind(value.kind))
    return {
      ok: false,
      errors: ['tests can be added to a "tests" or "program" judge config; the config above is neither'],
    };
  const tests = value.tests === undefined ? [] : value.tests;
  if (!Array.isArray(tests))
    return { ok: false, errors: ['the judge config\'s "tests" is not a list; fix it before adding tests'] };
  return { ok: true, value: { ...(value as JudgeWithTests), tests } };
}

const FIELD_WORDS: Record<string, string> = {
  stdin: 'input',
  expected_stdout: 'expected',
  args: 'input',
  expected: 'expected',
  name: 'name',
  export: 'export (the function called)',
};

/**
 * The config with the new tests appended, as the box shows it, or the judge schema's complaints
 * about them, each by the case's origin (by case index too, so rows can show theirs). Names left
 * empty become "test N", the first N free. Complaints about the tests already in the config are
 * not this step's (saving shows them).
 */
export function addTestsToJudge(
  judgeText: string,
  newCases: NewTestCase[],
  exportName = '',
):
  | { ok: true; text: string; added: number }
  | { ok: false; errors: { index: number | null; message: string }[] } {
  const judge = judgeWithTestsOf(judgeText);
  if (!judge.ok) return { ok: false, errors: judge.errors.map((message) => ({ index: null, message })) };
  const existing = judge.value.tests;
  const taken = new Set(
    existing
      .map((t) => (typeof t?.name === 'string' ? t.name.trim() : ''))
      .concat(newCases.map((c) => c.name?.trim() ?? '')),
  );
  let counter = existing.length;
  const freeName = () => {
    let name: string;
    do name = `test ${++counter}`;
    while (taken.has(name));
    taken.add(name);
    return name;
  };
  const lastExport = [...existing].reverse().find((t) => typeof t?.export === 'string')?.export as
    string | undefined;
  const added = newCases.map((c) => {
    const name = c.name?.trim() ? c.name : freeName();
    const hidden = c.visible ? {} : { hidden: true };
    if (judge.value.kind === 'program')
      return { name, ...hidden, stdin: c.input, expected_stdout: c.expected };
    return {
      name,
      ...hidden,
      export: c.exportName ?? (exportName || lastExport || 'default'),
      args: c.input,
      expected: c.expected,
    };
  });
  const merged = { ...judge.value, tests: [...existing, ...added] };
  const checked = judgeConfigSchema.safeParse(merged);
  if (!checked.success) {
    const errors: { index: number | null; message: string }[] = [];
    for (const issue of checked.error.issues) {
      if (issue.path[0] !== 'tests') continue;
      if (issue.path.length === 1) {
        errors.push({ index: null, message: `tests: ${issue.message}` });
        continue;
      }
      const at = Number(issue.path[1]);
      if (!(at >= existing.length)) continue;
      const index = at - existing.length;
      const field = issue.path[2];
      const words = typeof field === 'string' ? (FIELD_WORDS[field] ?? field) : '';
      errors.push({
        index,
        message: `${newCases[index].where}: ${words ? `${words}: ` : ''}${issue.message}`,
      });
    }
    if (errors.length) return { ok: false, errors };
  }
  return { ok: true, text: JSON.stringify(merged, null, 2), added: added.length };
}

/** The form's tests file, if one was chosen. */
export const testsFileOf = (form: ParsedForm | null) => form?.files.tests_file?.[0];

/** Field names of the errors these steps give (FieldErrors keys). */
export const TESTS_FILE_FIELD = 'tests_file';
export const TEST_ROWS_FIELD = 'test_rows';
export const testRowField = (index: number) => `test_row_${index}`;

/**
 * Everything typed for new tests (filled rows, a chosen file) added to the judge box: on "Add the
 * rows", "Import", save and dry run alike, so nothing typed is silently left out. Nothing typed:
 * the values as they are. Any error: the values unchanged, the errors by row, file or the rows as
 * a whole, and the rows kept as typed.
 */
export function applyTypedTests(
  judgeText: string,
  state: JudgeTestsState,
  file: { filename: string; content: string } | undefined,
  only: 'rows' | 'file' | 'both' = 'both',
): {
  judgeText: string;
  state: JudgeTestsState;
  errors: Record<string, string[]>;
  added: { rows: number; file: number };
} {
  const useRows = only !== 'file' && state.rows.some((r) => !isBlankRow(r));
  const useFile = only !== 'rows' && file !== undefined;
  const unchanged = { judgeText, state, errors: {}, added: { rows: 0, file: 0 } };
  if (!useRows && !useFile) return unchanged;
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  const judge = judgeWithTestsOf(judgeText);
  if (!judge.ok) {
    for (const message of judge.errors) add(useRows ? TEST_ROWS_FIELD : TESTS_FILE_FIELD, message);
    return { ...unchanged, errors };
  }
  const kind = judge.value.kind;
  const fromRows = useRows
    ? casesOfRows(kind, state.rows)
    : { cases: [], errors: new Map<number, string[]>() };
  for (const [row, messages] of fromRows.errors) for (const m of messages) add(testRowField(row), m);
  let fromFile: NewTestCase[] = [];
  if (useFile) {
    const read = casesOfFile(kind, file.filename || 'the file', file.content);
    if (read.ok) fromFile = read.value;
    else for (const m of read.errors) add(TESTS_FILE_FIELD, m);
  }
  if (Object.keys(errors).length) return { ...unchanged, errors };
  const cases = [...fromRows.cases.map((c) => c.testCase), ...fromFile];
  const merged = addTestsToJudge(judgeText, cases, state.exportName);
  if (!merged.ok) {
    for (const e of merged.errors) {
      if (e.index === null) add(useRows ? TEST_ROWS_FIELD : TESTS_FILE_FIELD, e.message);
      else if (e.index < fromRows.cases.length) add(testRowField(fromRows.cases[e.index].row), e.message);
      else add(TESTS_FILE_FIELD, e.message);
    }
    for (const key of Object.keys(errors)) errors[key] = capped(errors[key]);
    return { ...unchanged, errors };
  }
  return {
    judgeText: merged.text,
    // The rows are in the config now: one empty row to type the next.
    state: useRows ? emptyTestsState(state.exportName) : state,
    errors: {},
    added: { rows: fromRows.cases.length, file: fromFile.length },
  };
}
