/**
 * The console's challenge pages with the fakes (test/fakes): the form module (typed boxes → request
 * body, the domain's structured field errors shown inline, canonical JSON for "nothing changed")
 * and route handlers called as the pipeline calls them, against the in-memory challenges store
 * (test/fakes/stores/challenges.ts) and the in-memory Temporal client. The HTTP path (CSRF, operators only, browsers) is in
 * test/system/admin-console.test.ts.
 */
import { consoleChallengeRoutes } from '../../../../../src/api/pages/challenges/console-routes';
import {
  CHALLENGE_FIELDS,
  CHALLENGE_TEMPLATES,
  NEW_CHALLENGE_VALUES,
  TEMPLATE_MENU,
  issuesToErrors,
  newChallengeValues,
  challengeInput,
  changedFields,
  domainErrorsToFields,
  formValuesOf,
  renderChallengeFormPage,
  type FieldErrors,
} from '../../../../../src/api/pages/challenges/form';
import {
  JUDGE_KINDS,
  JUDGE_TEMPLATES,
  judgeGuideHtml,
  judgeKindOfText,
  judgeTemplateText,
} from '../../../../../src/api/pages/challenges/judge-editor-view';
import { judgeConfigSchema } from '../../../../../src/judging';
import type { AppDeps } from '../../../../../src/api/deps';
import type { HandlerInput } from '../../../../../src/api/route';
import { CHALLENGE_LIFECYCLE_WORKFLOW } from '../../../../../src/domain/challenges/contract';
import { invalidFields, validationError } from '../../../../../src/errors';
import { fakeServiceDeps } from '../../../../fakes/deps';
import { challengeRow } from '../../../../fakes/challenge-row';
import { createFakeChallengeStore } from '../../../../fakes/stores/challenges';
import { createChallengeBody } from '../../../../../src/api/schemas/challenges';
import { CHALLENGE_FORMATS, toChallengeFields } from '../../../../../src/domain/challenges/rules';

const ID = '55555555-5555-4555-8555-555555555555';
const NOW = new Date('2026-03-01T12:00:00Z');
const session = {
  id: 's1',
  userId: 'u1',
  subject: 'op',
  name: 'Op',
  role: 'admin' as const,
  csrfToken: 'csrf-1',
};
const principal = { kind: 'user' as const, userId: 'u1', role: 'admin' as const, name: 'Op' };

const row = challengeRow({
  id: ID,
  title: 'Sorting',
  description: 'Sort numbers.',
  category: 'algorithms',
  format: 'solo',
  weight_class_id: 'open',
  time_limit_minutes: null,
  entry_fee_cents: null,
  prize_pool: null,
  starts_at: new Date('2026-03-02T00:00:00Z'),
  ends_at: new Date('2026-03-09T00:00:00Z'),
  is_featured: false,
  is_daily: false,
  judge: { kind: 'rubric', criteria: [{ name: 'works', weight: 1, pattern: 'x' }] },
  max_submissions_per_session: 10,
  max_submissions_per_day: 50,
  final_submissions: 2,
  freeze_minutes: 0,
  status: 'draft',
  quarantine_reason: null,
  published_at: null,
  quarantined_at: null,
  retired_at: null,
  updated_at: NOW,
});

function route(operationId: string) {
  const found = consoleChallengeRoutes.find((r) => r.operationId === operationId);
  if (!found) throw new Error(`no route ${operationId}`);
  return found;
}

function call(operationId: string, input: Partial<HandlerInput<unknown, unknown, unknown>>) {
  return route(operationId).handler({
    query: {},
    body: {},
    principal,
    webSession: session,
    form: null,
    requestId: 'r1',
    idempotencyKey: null,
    ctx: undefined as never,
    ...input,
  } as HandlerInput<never, never, never>);
}

/** The deps with the challenge stored (operator u1 known to the audit trail, the database clock at NOW). */
function fakeAppDeps() {
  const store = createFakeChallengeStore({ challenges: [row], users: ['u1'] });
  store.clock = () => NOW;
  return Object.assign(fakeServiceDeps(), { stores: { challenges: store }, store });
}

/** Whether anything was stored: the challenge changed, an audit record or an event written. */
function wroteAnything(deps: ReturnType<typeof fakeAppDeps>): boolean {
  const stored = deps.store.challenges.get(ID);
  return (
    JSON.stringify(stored) !== JSON.stringify(row) ||
    deps.store.audits.length > 0 ||
    deps.store.events.length > 0
  );
}

const formOf = (values: Record<string, string>) => ({
  fields: Object.fromEntries(Object.entries(values).map(([k, v]) => [k, [v]])),
  files: {},
});

describe('the challenge form module', () => {
  test('typed boxes become the request body; unreadable boxes are errors next to their field', () => {
    const { input, errors } = challengeInput({
      ...NEW_CHALLENGE_VALUES,
      time_limit_minutes: '1.5',
      prize_pool: 'lots',
      entry_fee_cents: '',
      judge: '{"kind": ',
      is_featured: 'on',
    });
    expect(input).toMatchObject({ entry_fee_cents: null, is_featured: true });
    expect(errors.time_limit_minutes).toEqual(['must be a whole number']);
    expect(errors.prize_pool).toEqual(['must be a number']);
    expect(errors.judge?.[0]).toMatch(/^not valid JSON: /);
  });

  test('final submissions and the freeze (fair contests): typed, checked by the API schema, errors by their field', async () => {
    const good = challengeInput({ ...NEW_CHALLENGE_VALUES, final_submissions: '3', freeze_minutes: '60' });
    expect(good.input).toMatchObject({ final_submissions: 3, freeze_minutes: 60 });
    const form = formOf({
      ...NEW_CHALLENGE_VALUES,
      _csrf: 'csrf-1',
      title: 'Fair',
      final_submissions: '0',
      freeze_minutes: '-5',
    });
    const result = (await call('consoleCreateChallengeForm', {
      deps: fakeAppDeps() as unknown as AppDeps,
      form,
    })) as { status: number; raw: string };
    expect(result.status).toBe(400);
    expect(result.raw).toMatch(/<p class="field-error" id="err-final_submissions">[^<]*1/);
    expect(result.raw).toMatch(/<p class="field-error" id="err-freeze_minutes">[^<]*0/);
    expect(result.raw).toMatch(/id="f-final-submissions" name="final_submissions" value="0"/);
    const edit = renderChallengeFormPage({
      challenge: { ...row, status: 'active' },
      values: formValuesOf({ ...row, final_submissions: 4, freeze_minutes: 15 }),
      errors: {},
      csrfToken: 'csrf-1',
      account: null as never,
    }).html.toString();
    expect(edit).toMatch(/name="final_submissions" value="4"/);
    expect(edit).toMatch(/name="freeze_minutes" value="15"/);
    expect(edit).toContain(`href="/admin/clarifications?challenge_id=${ID}#announce"`);
  });

  test('a judge config typed in another key order is not a change (canonical JSON); a real change is', () => {
    const values = formValuesOf(row);
    values.judge = '{"criteria":[{"pattern":"x","weight":1,"name":"works"}],"kind":"rubric"}';
    expect(changedFields(challengeInput(values).input, row as never)).toEqual({});
    values.title = 'Sorting, again';
    expect(changedFields(challengeInput(values).input, row as never)).toEqual({ title: 'Sorting, again' });
  });

  test("the domain's refusal lands next to the field it names (structured fields, no message parsing)", () => {
    const errors: FieldErrors = {};
    domainErrorsToFields(
      invalidFields({ ends_at: 'ends_at must be after starts_at', nope: 'unknown' }),
      errors,
    );
    domainErrorsToFields(validationError('something else'), errors);
    expect(errors).toEqual({
      ends_at: ['ends_at must be after starts_at'],
      '': ['nope: unknown', 'something else'],
    });
  });

  test('the page shows each field error inline, the summary links to the field, what was typed is kept', () => {
    const page = renderChallengeFormPage({
      challenge: null,
      values: { ...NEW_CHALLENGE_VALUES, title: '<b>typed</b>' },
      errors: { ends_at: ['ends_at must be after starts_at'] },
      csrfToken: 'csrf-1',
      account: null as never,
    }).html.toString();
    expect(page).toContain('id="err-ends_at"');
    expect(page).toMatch(
      /id="f-ends-at" name="ends_at" value="" aria-invalid="true" aria-describedby="hint-ends_at err-ends_at"/,
    );
    expect(page).toContain('<a href="#f-ends-at">Ends at</a>: ends_at must be after starts_at');
    expect(page).toContain('&lt;b&gt;typed&lt;/b&gt;');
    expect(page).toContain('value="csrf-1"');
    expect(CHALLENGE_FIELDS.every((f) => page.includes(`name="${f.name}"`))).toBe(true);
  });
});

describe('the format menu and its templates (issue 41)', () => {
  test('every format has a template whose form the API accepts as it stands, match settings where the format needs them', () => {
    const formats = TEMPLATE_MENU.map((id) => CHALLENGE_TEMPLATES[id]!.values.format);
    expect(new Set(formats)).toEqual(new Set(CHALLENGE_FORMATS));
    for (const id of TEMPLATE_MENU) {
      const values = { ...newChallengeValues(id), title: `From ${id}`, category: 'c' };
      const { input, errors } = challengeInput(values);
      expect({ id, errors }).toEqual({ id, errors: {} });
      const parsed = createChallengeBody.parse(input);
      expect(parsed.format).toBe(CHALLENGE_TEMPLATES[id]!.values.format);
      const fields = toChallengeFields(parsed); // the domain's checks: match settings per format, game judge
      expect(fields.match === null).toBe(!['head_to_head', 'game'].includes(parsed.format));
    }
    expect(newChallengeValues('rubric').format).toBe('solo'); // the older link still works
  });

  test('the form offers the menu (a stored older value too); a value outside it is an error beside the field', () => {
    const page = (values: Record<string, string>, errors: FieldErrors = {}) =>
      renderChallengeFormPage({
        challenge: null,
        values: { ...NEW_CHALLENGE_VALUES, ...values },
        errors,
        csrfToken: 'csrf-1',
        account: null as never,
      }).html.toString();
    const menu = page({ format: 'game' });
    expect(menu).toContain('<select id="f-format" name="format"');
    for (const f of CHALLENGE_FORMATS) expect(menu).toContain(`<option value="${f}"`);
    expect(menu).toContain('<option value="game" selected>game</option>');
    for (const id of TEMPLATE_MENU) expect(menu).toContain(`href="/admin/challenges/new?template=${id}"`);
    expect(page({ format: 'head to head' })).toContain(
      '<option value="head to head" selected>head to head (stored; no longer offered)</option>',
    );

    const { input, errors } = challengeInput({
      ...NEW_CHALLENGE_VALUES,
      title: 't',
      category: 'c',
      format: 'duel',
    });
    const parsed = createChallengeBody.safeParse(input);
    expect(parsed.success).toBe(false);
    if (!parsed.success) issuesToErrors(parsed.error.issues, errors);
    expect(errors.format).toEqual(['must be one of solo, text, code, head_to_head, game']);
    expect(page({ format: 'duel' }, errors)).toContain('<a href="#f-format">Format</a>: must be one of solo');
  });
});

describe('console challenge routes with the fakes', () => {
  test('the confirmed publish form publishes and redirects; the fake Temporal has the lifecycle workflow', async () => {
    const deps = fakeAppDeps();
    const result = await call('consolePublishForm', {
      params: { id: ID },
      deps: deps as unknown as AppDeps,
      form: formOf({ _csrf: 'csrf-1', confirm: 'yes' }),
    });
    expect(result).toEqual({ redirect: `/admin/challenges/${ID}?done=published`, status: 303 });
    expect(deps.fakeTemporal.started(CHALLENGE_LIFECYCLE_WORKFLOW).map((w) => w.args)).toEqual([
      [
        {
          challengeId: ID,
          schedule: { startsAt: row.starts_at!.toISOString(), endsAt: row.ends_at!.toISOString() },
        },
      ],
    ]);
  });

  test("an edit the domain refuses (ends before it starts) comes back as the form, 400, the error next to 'Ends at', nothing committed", async () => {
    const deps = fakeAppDeps();
    const values = { ...formValuesOf(row), _csrf: 'csrf-1', ends_at: '2026-03-01T00:00:00Z' };
    const result = (await call('consoleEditChallengeForm', {
      params: { id: ID },
      deps: deps as unknown as AppDeps,
      form: formOf(values),
    })) as { status: number; raw: string };
    expect(result.status).toBe(400);
    expect(result.raw).toMatch(
      /<p class="field-error" id="err-ends_at">ends_at must be after starts_at<\/p>/,
    );
    expect(result.raw).toContain('value="2026-03-01T00:00:00Z"');
    // Rolled back: the row as it was, no audit record.
    expect(deps.store.challenges.get(ID)).toEqual(row);
    expect(deps.store.audits).toEqual([]);
    expect(deps.fakeTemporal.connects).toBe(0);
  });

  test('the challenge page renders the stored challenge in its form, with the notice of the action done', async () => {
    const deps = fakeAppDeps();
    const result = (await call('consoleChallenge', {
      params: { id: ID },
      query: { done: 'published' },
      deps: deps as unknown as AppDeps,
    })) as { status: number; raw: string };
    expect(result.status).toBe(200);
    expect(result.raw).toContain('Published: the challenge is active.');
    expect(result.raw).toContain('Edit: Sorting');
    expect(result.raw).toContain(`href="/admin/challenges/${ID}/publish"`);
  });
});

describe('the judge-config editor per kind', () => {
  test('every kind has a template the judge schema accepts as it stands, and a guide of its fields', () => {
    for (const kind of JUDGE_KINDS) {
      const parsed = judgeConfigSchema.safeParse(JSON.parse(judgeTemplateText(kind)));
      expect([kind, parsed.success ? 'ok' : parsed.error.issues]).toEqual([kind, 'ok']);
      const guide = judgeGuideHtml(kind).toString();
      // Every top-level field of the template is explained in the guide.
      for (const field of Object.keys(JUDGE_TEMPLATES[kind]))
        expect([kind, field, guide.includes(`<code>${field}</code>`)]).toEqual([kind, field, true]);
    }
  });

  test("the program judge's schema is explained on the page: stdin/expected_stdout, compare modes, languages, verdicts", () => {
    const guide = judgeGuideHtml('program').toString();
    for (const words of [
      'expected_stdout',
      'stdin',
      'tokens',
      'float_tolerance',
      'time_limit_ms',
      'cpp',
      'wrong_answer',
    ])
      expect([words, guide.includes(words)]).toEqual([words, true]);
  });

  test('the editor follows the kind the box names, else the kind just chosen; errors stay structured by path', () => {
    const page = renderChallengeFormPage({
      challenge: null,
      values: { ...NEW_CHALLENGE_VALUES, judge: judgeTemplateText('program') },
      errors: { judge: ['judge.tests.0.expected_stdout: Required'] },
      csrfToken: 'csrf-1',
      account: null as never,
    }).html.toString();
    expect(page).toMatch(/<option value="program" selected>/);
    expect(page).toContain('data-kind="program"');
    expect(page).toContain(
      '<p class="field-error" id="err-judge">judge.tests.0.expected_stdout: Required</p>',
    );
    expect(page).toMatch(
      /id="f-judge" name="judge" rows="18" aria-invalid="true" aria-describedby="hint-judge err-judge"/,
    );
    expect(page).toContain('formaction="/admin/challenges/new/judge-template#judge-editor"');
    expect(judgeKindOfText('{"kind":"http"}')).toBe('http');
    expect(judgeKindOfText('{"kind":')).toBeNull();
    const chosen = renderChallengeFormPage({
      challenge: null,
      values: { ...NEW_CHALLENGE_VALUES, judge: '{"kind": ' },
      errors: {},
      judgeKind: 'game',
      csrfToken: 'csrf-1',
      account: null as never,
    }).html.toString();
    expect(chosen).toContain('data-kind="game"');
  });

  test('the template form keeps what was typed and replaces only the judge box (nothing saved); a kind it does not know is a 400 beside the box', async () => {
    const deps = fakeAppDeps();
    const values = { ...formValuesOf(row), _csrf: 'csrf-1', title: 'Typed title', judge_kind: 'program' };
    const result = (await call('consoleJudgeTemplateForm', {
      params: { id: ID },
      deps: deps as unknown as AppDeps,
      form: formOf(values),
    })) as { status: number; raw: string };
    expect(result.status).toBe(200);
    expect(result.raw).toContain('value="Typed title"');
    expect(result.raw).toContain('the program template; nothing was saved');
    expect(result.raw).toContain('&quot;expected_stdout&quot;');
    expect(wroteAnything(deps)).toBe(false);
    const unknown = (await call('consoleJudgeTemplateNewForm', {
      deps: deps as unknown as AppDeps,
      form: formOf({ ...NEW_CHALLENGE_VALUES, _csrf: 'csrf-1', judge_kind: 'chess' }),
    })) as { status: number; raw: string };
    expect(unknown.status).toBe(400);
    expect(unknown.raw).toContain('id="err-judge">choose a judge kind: rubric, tests, program, http, game');
  });
});

describe('rows to add tests and the import of a tests file (routes and page)', () => {
  const PROGRAM_JUDGE = JSON.stringify(
    { kind: 'program', tests: [{ name: 'sample', stdin: '1 2\n', expected_stdout: '3\n' }] },
    null,
    2,
  );
  const typed = (
    extra: Record<string, string[]>,
    files: Record<string, { filename: string; content: string }[]> = {},
  ) => ({
    fields: {
      ...Object.fromEntries(
        Object.entries({ ...formValuesOf(row), _csrf: 'csrf-1', judge: PROGRAM_JUDGE }).map(([k, v]) => [
          k,
          [v],
        ]),
      ),
      ...extra,
    },
    files,
  });
  const post = async (operationId: string, form: ReturnType<typeof typed>) => {
    const deps = fakeAppDeps();
    const result = (await call(operationId, {
      params: { id: ID },
      deps: deps as unknown as AppDeps,
      form,
    })) as { status: number; raw: string; redirect?: string };
    return { result, deps, wrote: wroteAnything(deps) };
  };

  test('the page shows the rows, their buttons and the file field for program and tests configs only; the script is under the nonce', () => {
    const page = renderChallengeFormPage({
      challenge: null,
      values: { ...NEW_CHALLENGE_VALUES, judge: PROGRAM_JUDGE },
      errors: {},
      csrfToken: 'csrf-1',
      account: null as never,
    });
    const text = page.html.toString();
    expect(text).toContain('<fieldset class="test-row" id="test-row-1"><legend>New test 1</legend>');
    expect(text).toContain('formaction="/admin/challenges/new/judge-tests#test-rows"');
    expect(text).toMatch(
      /<button type="submit" class="secondary" id="add-test-row" name="judge_tests_action" value="add-row"/,
    );
    expect(text).toContain('<input type="file" id="f-tests-file" name="tests_file"');
    expect(text).toContain(
      '<template id="test-row-template"><fieldset class="test-row" id="test-row-__N__">',
    );
    // No inline handler anywhere; the one script carries the response's nonce.
    expect(text).not.toMatch(/\son[a-z]+=/);
    const nonce = /script-src 'nonce-([^']+)'/.exec(page.headers['Content-Security-Policy'])?.[1];
    expect(text).toContain(`<script nonce="${nonce}">`);
    const rubric = renderChallengeFormPage({
      challenge: null,
      values: NEW_CHALLENGE_VALUES,
      errors: {},
      csrfToken: 'csrf-1',
      account: null as never,
    }).html.toString();
    expect(rubric).not.toContain('id="judge-tests"');
  });

  test('"Add a row" without script: the form as typed comes back with one more empty row, nothing saved', async () => {
    const { result, wrote } = await post(
      'consoleJudgeTestsForm',
      typed({
        judge_tests_action: ['add-row'],
        title: ['Typed title'],
        test_name: ['first'],
        test_input: ['5 6\r\n'],
        test_expected: ['11'],
        test_visibility: ['hidden'],
      }),
    );
    expect(result.status).toBe(200);
    expect(wrote).toBe(false);
    expect(result.raw).toContain('value="Typed title"');
    expect(result.raw).toContain('id="test-name-1" name="test_name" value="first"');
    expect(result.raw).toMatch(/id="test-input-1" name="test_input"[^>]*>5 6\n<\/textarea>/);
    expect(result.raw).toContain('<option value="hidden" selected>');
    expect(result.raw).toContain('id="test-row-2"');
    expect(result.raw).not.toContain('id="test-row-3"');
  });

  test('"Add the rows to the config": the box holds them, the rows are empty again, nothing saved', async () => {
    const { result, wrote } = await post(
      'consoleJudgeTestsNewForm',
      typed({
        judge_tests_action: ['add-rows'],
        test_input: ['5 6'],
        test_expected: ['11\n'],
        test_visibility: ['visible'],
      }),
    );
    expect(result.status).toBe(200);
    expect(wrote).toBe(false);
    expect(result.raw).toContain('1 test added to the judge config; nothing was saved');
    expect(result.raw).toContain('&quot;name&quot;: &quot;test 2&quot;');
    expect(result.raw).toContain('&quot;stdin&quot;: &quot;5 6&quot;');
    expect(result.raw).toMatch(/id="test-input-1" name="test_input"[^>]*><\/textarea>/);
  });

  test('a bad tests file: 400, the error beside the file field and in the summary, the box unchanged, nothing saved', async () => {
    const { result, wrote } = await post(
      'consoleJudgeTestsForm',
      typed(
        { judge_tests_action: ['import'] },
        { tests_file: [{ filename: 'bad.jsonl', content: '{"input": "1"}\n{oops' }] },
      ),
    );
    expect(result.status).toBe(400);
    expect(wrote).toBe(false);
    expect(result.raw).toMatch(
      /<p class="field-error" id="err-tests-file">bad.jsonl is neither a JSON document nor JSON Lines \(one case a line\)<br>line 2: not valid JSON/,
    );
    expect(result.raw).toContain('aria-describedby="hint-tests-file err-tests-file" aria-invalid="true"');
    expect(result.raw).toContain('<a href="#f-tests-file">Import tests from a file</a>');
    expect(result.raw).not.toContain('test 2');
    const none = await post('consoleJudgeTestsForm', typed({ judge_tests_action: ['import'] }));
    expect(none.result.status).toBe(400);
    expect(none.result.raw).toContain('choose a JSON or JSONL file of tests first');
  });

  test('a good tests file: its cases in the box with a notice naming it', async () => {
    const { result } = await post(
      'consoleJudgeTestsForm',
      typed(
        { judge_tests_action: ['import'] },
        {
          tests_file: [
            { filename: 'more.json', content: '[{"input": "2 2\\n", "expected": "4\\n", "visible": false}]' },
          ],
        },
      ),
    );
    expect(result.status).toBe(200);
    expect(result.raw).toContain('1 test added to the judge config from more.json; nothing was saved');
    expect(result.raw).toContain('&quot;hidden&quot;: true');
  });

  test('a save refused for another field comes back with the rows in the box, said so, nothing written', async () => {
    const { result, wrote } = await post(
      'consoleEditChallengeForm',
      typed({
        max_submissions_per_session: ['many'],
        test_input: ['7 8'],
        test_expected: ['15'],
        test_visibility: ['visible'],
        test_name: [''],
      }),
    );
    expect(result.status).toBe(400);
    expect(wrote).toBe(false);
    expect(result.raw).toContain(
      '1 test typed under the judge box (rows or file) is now in the judge config; nothing was saved.',
    );
    expect(result.raw).toContain('&quot;stdin&quot;: &quot;7 8&quot;');
    expect(result.raw).toMatch(/id="test-input-1" name="test_input"[^>]*><\/textarea>/);
  });

  test('save takes the filled rows too; a bad row refuses the save (400, error beside the row, nothing written)', async () => {
    const bad = await post(
      'consoleEditChallengeForm',
      typed({ test_input: ['1'], test_expected: [''], test_visibility: ['visible'], test_name: ['sample'] }),
    );
    expect(bad.result.status).toBe(400);
    expect(bad.wrote).toBe(false);
    expect(bad.result.raw).toMatch(
      /<p class="field-error" id="err-test-row-1">row 1: name: duplicate name &quot;sample&quot;<\/p>/,
    );
    expect(bad.result.raw).toContain('<a href="#test-input-1">New test 1</a>');
    const good = await post(
      'consoleEditChallengeForm',
      typed({ test_input: ['7 8'], test_expected: ['15'], test_visibility: ['visible'], test_name: [''] }),
    );
    expect(good.result.redirect).toBe(`/admin/challenges/${ID}?done=saved`);
    expect(JSON.stringify(good.deps.store.challenges.get(ID)!.judge)).toContain('test 2');
    expect(good.deps.store.audits.map((a) => a.action)).toEqual(['challenge.update']);
  });
});
