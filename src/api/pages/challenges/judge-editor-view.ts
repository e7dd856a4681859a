/**
 * The console's judge-config editor (issue 29, "a judge-config editor per kind"): a kind selector
 * whose button puts that kind's template in the box (no script needed: the form is re-shown with
 * everything else as typed, nothing saved), the JSON box itself with its structured field errors
 * (`judge.tests.0.expected_stdout: …`, as the API's schema names them), and the selected kind's
 * schema explained on the page: every field, its type, default and bounds, and what it means.
 * Bounds come from the judge schema's own limits, so the page cannot drift from what is accepted.
 */
import { JUDGE_CONFIG_LIMITS, PROGRAM_LANGUAGE_IDS } from '../../../judging';
import { GAME_JUDGE_LIMITS } from '../../../judging/config';
import { GAME_IDS } from '../../../judging/games/catalog';
import { html, joinHtml, raw, type SafeHtml } from '../../../web/html';
import {
  TESTS_FILE_FIELD,
  TEST_ROWS_FIELD,
  emptyTestsState,
  isTestsKind,
  testRowField,
  type JudgeTestsState,
  type TestRowValues,
  type TestsKind,
} from './judge-tests';

export const JUDGE_KINDS = ['rubric', 'tests', 'program', 'http', 'game'] as const;
export type JudgeKind = (typeof JUDGE_KINDS)[number];

export const isJudgeKind = (value: unknown): value is JudgeKind =>
  typeof value === 'string' && (JUDGE_KINDS as readonly string[]).includes(value);

const L = JUDGE_CONFIG_LIMITS;
const G = GAME_JUDGE_LIMITS;

/** A starting config per kind: valid as it stands (a test proves each parses), meant to be edited. */
export const JUDGE_TEMPLATES: Record<JudgeKind, object> = {
  rubric: {
    kind: 'rubric',
    criteria: [
      { name: 'answer', weight: 3, check: { type: 'contains', value: '42' } },
      { name: 'concise', weight: 1, check: { type: 'length', max: 2000 } },
    ],
  },
  tests: {
    kind: 'tests',
    entry: 'src/solution.ts',
    timeout_ms_per_test: L.defaultTestTimeoutMs,
    memory_mb: L.defaultMemoryMb,
    tests: [
      { name: 'reverses a word', export: 'reverse', args: ['abc'], expected: 'cba' },
      { name: 'empty string', export: 'reverse', args: [''], expected: '' },
      { name: 'longer input', export: 'reverse', args: ['stressed'], expected: 'desserts', hidden: true },
    ],
  },
  program: {
    kind: 'program',
    languages: ['python', 'cpp', 'javascript'],
    time_limit_ms: L.defaultProgramTimeLimitMs,
    memory_mb: L.defaultProgramMemoryMb,
    compare: 'lines',
    tests: [
      { name: 'sample', stdin: '1 2\n', expected_stdout: '3\n' },
      { name: 'negatives', stdin: '-5 3\n', expected_stdout: '-2\n' },
      { name: 'large', stdin: '1000000000 1000000000\n', expected_stdout: '2000000000\n', hidden: true },
    ],
  },
  http: {
    kind: 'http',
    url: 'https://grader.example.com/grade',
    timeout_ms: L.defaultHttpTimeoutMs,
    headers: { Authorization: 'Bearer replace-me' },
  },
  game: {
    kind: 'game',
    game: GAME_IDS[0],
    languages: ['python', 'javascript'],
    turn_ms: G.defaultTurnMs,
    bank_ms: G.defaultBankMs,
    memory_mb: G.defaultMemoryMb,
    games_per_match: G.defaultGamesPerMatch,
  },
};

export const judgeTemplateText = (kind: JudgeKind): string => JSON.stringify(JUDGE_TEMPLATES[kind], null, 2);

/** The kind named by the box's JSON, if it reads as one (the selector follows what is typed). */
export function judgeKindOfText(text: string): JudgeKind | null {
  try {
    const kind = (JSON.parse(text) as { kind?: unknown } | null)?.kind;
    return isJudgeKind(kind) ? kind : null;
  } catch {
    return null;
  }
}

interface GuideRow {
  field: string;
  type: string;
  /** Default and bounds, as accepted. */
  values: string;
  meaning: string;
}

interface KindGuide {
  label: string;
  summary: string;
  rows: GuideRow[];
  /** Fields of each item of a list (criteria, tests). */
  items?: { of: string; rows: GuideRow[] };
  note?: string;
}

const shared = {
  name: {
    field: 'name',
    type: 'string',
    values: `1–${L.maxNameLength} characters, unique`,
    meaning: 'Shown to competitors in their verdict table.',
  },
  weight: {
    field: 'weight',
    type: 'number',
    values: `default 1; above 0, ≤ ${L.maxWeight}`,
    meaning: 'Share of the score.',
  },
  hidden: {
    field: 'hidden',
    type: 'boolean',
    values: 'default false',
    meaning: 'Competitors see only that it exists and its verdict (no input, output or time).',
  },
  private: {
    field: 'private',
    type: 'boolean',
    values: 'default false',
    meaning: 'Counted only in the private score, unseen until the challenge is complete.',
  },
} satisfies Record<string, GuideRow>;

export const JUDGE_GUIDES: Record<JudgeKind, KindGuide> = {
  rubric: {
    label: 'Rubric (text answers)',
    summary:
      'The submission is text. Each criterion passes or not (0 or 100); the score is the weighted share of criteria passed.',
    rows: [
      { field: 'criteria', type: 'list', values: `1–${L.maxCriteria}`, meaning: 'The criteria, below.' },
    ],
    items: {
      of: 'criteria[]',
      rows: [
        shared.name,
        shared.weight,
        shared.hidden,
        shared.private,
        {
          field: 'description',
          type: 'string',
          values: 'optional, ≤ 2000',
          meaning: 'Shown beside the criterion.',
        },
        {
          field: 'check',
          type: 'object',
          values: 'type: exact | contains | regex | numeric | length',
          meaning:
            'exact {value, case_sensitive = true, trim = true}; contains {value, case_sensitive = true}; regex {pattern, flags ⊂ "imsu"}; numeric {value, tolerance = 0}; length {min?, max?}.',
        },
      ],
    },
  },
  tests: {
    label: 'Tests (JavaScript/TypeScript functions)',
    summary:
      'Each test imports the entry module of the submission, calls one of its exports with args and compares the result with expected (deep equality), in its own sandbox process.',
    rows: [
      {
        field: 'entry',
        type: 'string',
        values: 'optional; a relative path without ..',
        meaning:
          'The module tested, e.g. src/solution.ts; competitors see it as judge_public.entry, and a submission without that file is refused before it counts. Without it: the first JS/TS file.',
      },
      {
        field: 'timeout_ms_per_test',
        type: 'integer',
        values: `default ${L.defaultTestTimeoutMs}; ${L.minTestTimeoutMs}–${L.maxTestTimeoutMs}`,
        meaning: 'Wall time of one test.',
      },
      {
        field: 'memory_mb',
        type: 'integer',
        values: `default ${L.defaultMemoryMb}; ${L.minMemoryMb}–${L.maxMemoryMb}`,
        meaning: 'Memory of one test process.',
      },
      { field: 'tests', type: 'list', values: `1–${L.maxTests}`, meaning: 'The tests, below.' },
    ],
    items: {
      of: 'tests[]',
      rows: [
        shared.name,
        shared.weight,
        shared.hidden,
        shared.private,
        {
          field: 'export',
          type: 'string',
          values: 'a JavaScript identifier',
          meaning: 'The exported function called ("default" for the default export).',
        },
        {
          field: 'args',
          type: 'list of JSON',
          values: `default []; ≤ ${L.maxArgs}`,
          meaning: 'Its arguments.',
        },
        { field: 'expected', type: 'JSON', values: 'required', meaning: 'What it must return.' },
      ],
    },
  },
  program: {
    label: 'Program (stdin → stdout, any language)',
    summary:
      'The submission is a whole program in one of the allowed languages (its entry: main.EXT (main.py, main.cpp…) or Main.java at any depth, else the only code file). It is compiled once, then each test runs it with the test’s stdin; its standard output is compared with expected_stdout. Verdicts per test: accepted, wrong_answer, time_limit_exceeded, memory_limit_exceeded, output_limit_exceeded, runtime_error, compile_error. The score is the weighted share of accepted tests.',
    rows: [
      {
        field: 'languages',
        type: 'list of language ids',
        values: `optional (default: all); ${PROGRAM_LANGUAGE_IDS.join(', ')}`,
        meaning: 'What competitors may submit; their language menu offers exactly these.',
      },
      {
        field: 'time_limit_ms',
        type: 'integer',
        values: `default ${L.defaultProgramTimeLimitMs}; ${L.minProgramTimeLimitMs}–${L.maxProgramTimeLimitMs}`,
        meaning: 'CPU time per test, all processes of the run counted.',
      },
      {
        field: 'memory_mb',
        type: 'integer',
        values: `default ${L.defaultProgramMemoryMb}; ${L.minProgramMemoryMb}–${L.maxProgramMemoryMb}`,
        meaning: 'Peak memory per test.',
      },
      {
        field: 'compare',
        type: 'lines | exact | tokens | float',
        values: 'default lines',
        meaning:
          'lines: line by line, trailing spaces and trailing blank lines ignored; exact: byte for byte; tokens: whitespace-separated words; float: tokens, numbers within float_tolerance.',
      },
      {
        field: 'float_tolerance',
        type: 'number',
        values: `default ${L.defaultFloatTolerance}; 0–1e6`,
        meaning: 'For compare "float": |got − want| ≤ tolerance · max(1, |want|).',
      },
      { field: 'tests', type: 'list', values: `1–${L.maxTests}`, meaning: 'The tests, below.' },
    ],
    items: {
      of: 'tests[]',
      rows: [
        shared.name,
        shared.weight,
        shared.hidden,
        shared.private,
        {
          field: 'stdin',
          type: 'string',
          values: 'default ""; ≤ 1 MiB',
          meaning: 'The program’s standard input.',
        },
        {
          field: 'expected_stdout',
          type: 'string',
          values: 'required; ≤ 1 MiB',
          meaning: 'What its standard output must be (see compare). Write line breaks as \\n.',
        },
      ],
    },
  },
  http: {
    label: 'HTTP grader (your own service)',
    summary:
      'Each submission is POSTed as {submission: {content, files}} to your grader, which answers {score (0–100), feedback?, criteria?, result_state?}. A 5xx or a timeout is retried; a 4xx is not.',
    rows: [
      {
        field: 'url',
        type: 'string',
        values: 'http or https, ≤ 2048',
        meaning: 'The grader’s address (public addresses only).',
      },
      {
        field: 'timeout_ms',
        type: 'integer',
        values: `default ${L.defaultHttpTimeoutMs}; ${L.minHttpTimeoutMs}–${L.maxHttpTimeoutMs}`,
        meaning: 'How long one grading may take.',
      },
      {
        field: 'headers',
        type: 'object of strings',
        values: `optional; ≤ ${L.maxHeaders}`,
        meaning:
          'Sent with each request (e.g. Authorization); Host, Content-Length and the like are not allowed.',
      },
    ],
  },
  game: {
    label: 'Game (programs play each other)',
    summary:
      'Submissions are players of a built-in game (GET /api/v1/games); matches between them decide the ratings. Use it with format "game".',
    rows: [
      { field: 'game', type: 'string', values: GAME_IDS.join(', '), meaning: 'The built-in game played.' },
      {
        field: 'languages',
        type: 'list of language ids',
        values: `optional (default: all); ${PROGRAM_LANGUAGE_IDS.join(', ')}`,
        meaning: 'What players may be written in.',
      },
      {
        field: 'turn_ms',
        type: 'integer',
        values: `default ${G.defaultTurnMs}; ${G.minTurnMs}–${G.maxTurnMs}`,
        meaning: 'CPU per turn; beyond it a turn draws on the bank.',
      },
      {
        field: 'bank_ms',
        type: 'integer',
        values: `default ${G.defaultBankMs}; ${G.minBankMs}–${G.maxBankMs}`,
        meaning: 'Extra CPU time for the whole game.',
      },
      {
        field: 'memory_mb',
        type: 'integer',
        values: `default ${G.defaultMemoryMb}; ${G.minMemoryMb}–${G.maxMemoryMb}`,
        meaning: 'Peak memory of a player.',
      },
      {
        field: 'games_per_match',
        type: 'integer',
        values: `default ${G.defaultGamesPerMatch}; ${G.minGamesPerMatch}–${G.maxGamesPerMatch}`,
        meaning: 'Games of one match (seats alternate).',
      },
      {
        field: 'max_turns',
        type: 'integer',
        values: `optional; 1–${G.maxTurns}`,
        meaning: 'Turns after which a game ends as it stands (default and upper bound: the game’s own).',
      },
    ],
  },
};

function guideTable(caption: string, id: string, rows: GuideRow[]): SafeHtml {
  const body = rows.map(
    (r) =>
      html`<tr><th scope="row"><code>${r.field}</code></th><td>${r.type}</td><td>${r.values}</td><td>${r.meaning}</td></tr>`,
  );
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${caption}"><table id="${id}"><caption>${caption}</caption><thead><tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Default and bounds</th><th scope="col">Meaning</th></tr></thead><tbody>${body}</tbody></table></div>`;
}

/** The selected kind's schema, explained. */
export function judgeGuideHtml(kind: JudgeKind): SafeHtml {
  const g = JUDGE_GUIDES[kind];
  return html`<details class="judge-guide" id="judge-guide" data-kind="${kind}" open><summary>How a <code>${kind}</code> judge config is written</summary>
<p>${g.summary}</p>
${guideTable(`Fields of a ${kind} judge`, `judge-guide-fields`, [{ field: 'kind', type: 'string', values: `"${kind}"`, meaning: g.label }, ...g.rows])}
${g.items ? guideTable(`Fields of each of ${g.items.of}`, 'judge-guide-items', g.items.rows) : ''}
<p class="small muted">Unknown fields are refused. An error names its place in the config (<code>judge.tests.0.expected_stdout</code> is the first test’s <code>expected_stdout</code>).</p>
</details>`;
}

/**
 * The judge part of the challenge form: the kind selector and its template button (posting the
 * form, as typed, to `templateAction`), the JSON box with its errors, and the selected kind's guide.
 * The selected kind: the one just chosen, else the one the box's JSON names, else rubric.
 */
export function judgeEditorHtml(input: {
  value: string;
  errors: string[] | undefined;
  selectedKind: JudgeKind | null;
  templateAction: string;
  /** Where "Add a row", "Add the rows" and "Import" post (the form as typed; saves nothing). */
  testsAction: string;
  /** The rows typed for new tests (tests and program kinds). */
  tests?: JudgeTestsState;
  /** Every error of the form, by field (the rows' and the file's are read here). */
  allErrors?: Record<string, string[]>;
}): SafeHtml {
  const kind = input.selectedKind ?? judgeKindOfText(input.value) ?? 'rubric';
  const errors = input.errors;
  const described = ['hint-judge', errors?.length ? 'err-judge' : ''].filter(Boolean).join(' ');
  const options = JUDGE_KINDS.map(
    (k) => html`<option value="${k}"${k === kind ? ' selected' : ''}>${JUDGE_GUIDES[k].label}</option>`,
  );
  return html`<fieldset class="judge-editor" id="judge-editor"><legend>Judge</legend>
<div class="actions"><label for="f-judge-kind">Judge kind<select id="f-judge-kind" name="judge_kind">${options}</select></label>
<button type="submit" class="secondary" id="judge-template" formaction="${input.templateAction}#judge-editor" formnovalidate>Start from this kind's template</button></div>
<p class="small muted">The template replaces the config in the box below; nothing is saved until you save the challenge.</p>
<div><label for="f-judge">Judge config (JSON)<textarea id="f-judge" name="judge" rows="18"${errors?.length ? html` aria-invalid="true"` : ''} aria-describedby="${described}" spellcheck="false">${input.value}</textarea></label><span class="small muted" id="hint-judge">The same schema as POST /api/v1/admin/challenges; the fields of the selected kind are explained below.</span>
${errors?.length ? html`<p class="field-error" id="err-judge">${joinHtml(errors, html`<br>`)}</p>` : ''}</div>
${
  isTestsKind(kind)
    ? judgeTestsHtml({
        kind,
        state: input.tests ?? emptyTestsState(),
        errors: input.allErrors ?? {},
        action: input.testsAction,
      })
    : ''
}
${judgeGuideHtml(kind)}
</fieldset>`;
}

const ROW_WORDS: Record<
  TestsKind,
  { input: string; expected: string; inputHint: string; expectedHint: string }
> = {
  program: {
    input: 'Input (standard input)',
    expected: 'Expected output (standard output)',
    inputHint: 'As typed, line breaks included.',
    expectedHint: 'Compared as the config’s compare says (lines: trailing spaces and blank lines ignored).',
  },
  tests: {
    input: 'Arguments (JSON list)',
    expected: 'Expected return value (JSON)',
    inputHint: 'e.g. ["abc"] for reverse("abc"); empty: no arguments.',
    expectedHint: 'e.g. "cba" (with its quotes), 42, [1, 2] or {"ok": true}.',
  },
};

/** The placeholder of the row index in the row template the script clones. */
export const ROW_INDEX_TOKEN = '__N__';

/** One row of new tests; `n` is its 1-based number (ROW_INDEX_TOKEN in the template). */
function testRowHtml(kind: TestsKind, n: string, row: TestRowValues, errors: string[] | undefined): SafeHtml {
  const words = ROW_WORDS[kind];
  const errId = `err-test-row-${n}`;
  const invalid = errors?.length ? html` aria-invalid="true"` : '';
  const described = (hint: string) =>
    html` aria-describedby="${[hint, errors?.length ? errId : ''].filter(Boolean).join(' ')}"`;
  return html`<fieldset class="test-row" id="test-row-${n}"><legend>New test ${n}</legend>
<label for="test-name-${n}">Name (optional: test N)<input id="test-name-${n}" name="test_name" value="${row.name}" maxlength="200" autocomplete="off"></label>
<label for="test-input-${n}">${words.input}<textarea id="test-input-${n}" name="test_input" rows="3" spellcheck="false"${invalid}${described(`hint-test-input-${n}`)}>${row.input}</textarea></label><span class="small muted" id="hint-test-input-${n}">${words.inputHint}</span>
<label for="test-expected-${n}">${words.expected}<textarea id="test-expected-${n}" name="test_expected" rows="3" spellcheck="false"${invalid}${described(`hint-test-expected-${n}`)}>${row.expected}</textarea></label><span class="small muted" id="hint-test-expected-${n}">${words.expectedHint}</span>
<label for="test-visibility-${n}">Competitors see<select id="test-visibility-${n}" name="test_visibility"><option value="visible"${row.visibility === 'visible' ? ' selected' : ''}>visible: its input, expected and output</option><option value="hidden"${row.visibility === 'hidden' ? ' selected' : ''}>hidden: only its verdict</option></select></label>
${errors?.length ? html`<p class="field-error" id="${errId}">${joinHtml(errors, html`<br>`)}</p>` : ''}
</fieldset>`;
}

const fieldError = (id: string, errors: string[] | undefined) =>
  errors?.length ? html`<p class="field-error" id="${id}">${joinHtml(errors, html`<br>`)}</p>` : '';

/**
 * "Add tests" under the box (tests and program kinds): rows of input and expected (one more with
 * "Add a row": the script adds it in place, without script the form comes back with it), and
 * the import of a JSON or JSONL file of cases. Each posts the form as typed; nothing is saved.
 */
export function judgeTestsHtml(input: {
  kind: TestsKind;
  state: JudgeTestsState;
  errors: Record<string, string[]>;
  action: string;
}): SafeHtml {
  const { kind, state, errors } = input;
  const rows = state.rows.map((row, i) => testRowHtml(kind, String(i + 1), row, errors[testRowField(i)]));
  const fileErrors = errors[TESTS_FILE_FIELD];
  const example =
    kind === 'program'
      ? '{"input": "1 2\\n", "expected": "3\\n"}'
      : '{"input": ["abc"], "expected": "cba", "visible": false}';
  return html`<fieldset class="judge-tests" id="judge-tests"><legend>Add tests</legend>
<p class="small muted">Filled rows are added to the config’s <code>tests</code> when you press “Add the rows to the config”, save or dry-run; empty rows are ignored. Nothing is saved until you save the challenge.</p>
${
  kind === 'tests'
    ? html`<label for="f-test-export">Function the new tests call (export)<input id="f-test-export" name="test_export" value="${state.exportName}" maxlength="100" autocomplete="off" aria-describedby="hint-test-export"></label><span class="small muted" id="hint-test-export">Empty: the function of the config’s last test (else “default”).</span>`
    : ''
}
${fieldError('err-test-rows', errors[TEST_ROWS_FIELD])}
<div id="test-rows">${joinHtml(rows, '\n')}</div>
<template id="test-row-template">${testRowHtml(kind, ROW_INDEX_TOKEN, { name: '', input: '', expected: '', visibility: 'visible' }, undefined)}</template>
<div class="actions"><button type="submit" class="secondary" id="add-test-row" name="judge_tests_action" value="add-row" formaction="${input.action}#test-rows" formnovalidate>Add a row</button>
<button type="submit" class="secondary" id="add-tests" name="judge_tests_action" value="add-rows" formaction="${input.action}#judge-editor" formnovalidate>Add the rows to the config</button></div>
<label for="f-tests-file">Import tests from a file (JSON or JSON Lines)<input type="file" id="f-tests-file" name="tests_file" accept=".json,.jsonl,.ndjson,application/json,application/x-ndjson,text/plain" aria-describedby="hint-tests-file${fileErrors?.length ? ' err-tests-file' : ''}"${fileErrors?.length ? html` aria-invalid="true"` : ''}></label>
<span class="small muted" id="hint-tests-file">A JSON list of cases or one case a line, each <code>${example}</code>; <code>visible</code> (default true) and <code>name</code> are optional${kind === 'tests' ? html`, <code>input</code> is the list of arguments` : ''}. A file with any bad case imports nothing.</span>
${fieldError('err-tests-file', fileErrors)}
<div class="actions"><button type="submit" class="secondary" id="import-tests" name="judge_tests_action" value="import" formaction="${input.action}#judge-editor" formnovalidate>Import tests from the file</button></div>
</fieldset>`;
}

/**
 * "Add a row" in place (progressive enhancement: without script the button posts the form and it
 * comes back with one more row): clones the row template, numbers its ids, focuses its first box.
 * DOM calls only (the pages require Trusted Types; no markup is parsed from strings).
 */
export const JUDGE_TESTS_SCRIPT = raw(`(function () {
  'use strict';
  var button = document.getElementById('add-test-row');
  var rows = document.getElementById('test-rows');
  var template = document.getElementById('test-row-template');
  if (!button || !rows || !template || !template.content) return;
  var token = ${JSON.stringify(ROW_INDEX_TOKEN)};
  button.addEventListener('click', function (event) {
    event.preventDefault();
    var n = String(rows.querySelectorAll('fieldset.test-row').length + 1);
    var row = template.content.firstElementChild.cloneNode(true);
    [row].concat(Array.prototype.slice.call(row.querySelectorAll('*'))).forEach(function (el) {
      ['id', 'for', 'aria-describedby'].forEach(function (name) {
        var value = el.getAttribute(name);
        if (value && value.indexOf(token) >= 0) el.setAttribute(name, value.split(token).join(n));
      });
    });
    var legend = row.querySelector('legend');
    if (legend) legend.textContent = 'New test ' + n;
    rows.append(row);
    var first = row.querySelector('input, textarea');
    if (first) first.focus();
  });
})();`);
