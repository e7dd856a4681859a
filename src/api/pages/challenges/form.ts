/**
 * The console's challenge form (create a draft, edit any challenge) with its dry run, as one module:
 * every operator-editable field, how the typed boxes become the API's request body (the API's own
 * schemas decide), each error next to its field (the schemas' issues, and the domain's refusals by
 * their structured `fields`), what the operator typed kept, and the page. Its routes:
 * console-routes.ts.
 */
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { ChallengeRow } from '../../../db/queries/challenges';
import { ServiceError } from '../../../errors';
import type { AdminBreakdown } from '../../../judging';
import { canonicalJson } from '../../../lib/canonical-json';
import { formatScore } from '../../../lib/score';
import type { ParsedForm } from '../../form-body';
import { unstorableString } from '../../schemas/common';
import { challengeFormatOptions } from '../../schemas/challenges';
import { csrfField } from '../../../web/forms';
import { consolePage, fmtTime, statusBadge } from '../console/view';
import { type HeaderAccount, type RenderedPage } from '../../../web/layout';
import { html, joinHtml, type SafeHtml } from '../../../web/html';
import { JUDGE_TESTS_SCRIPT, judgeEditorHtml, judgeTemplateText, type JudgeKind } from './judge-editor-view';
import { TESTS_FILE_FIELD, TEST_ROWS_FIELD, type JudgeTestsState } from './judge-tests';

export type ChallengeFieldKind =
  'text' | 'select' | 'textarea' | 'integer' | 'number' | 'instant' | 'checkbox' | 'json';

export interface ChallengeField {
  name: string;
  label: string;
  kind: ChallengeFieldKind;
  /** An empty box means null (no limit, no time…); otherwise an empty box is an error. */
  nullable?: boolean;
  /**
   * An empty (or absent) box is left out of the request body: the API's default on create, the
   * stored value on edit (fields added after forms were scripted, e.g. fair contests').
   */
  blankIsDefault?: boolean;
  hint?: string;
  maxLength?: number;
  /** A menu's choices (kind 'select'); a stored value outside them is offered too, as it is. */
  options?: readonly string[];
}

/** Every operator-editable field, in the form's order (createChallengeBody's fields). */
export const CHALLENGE_FIELDS: readonly ChallengeField[] = [
  { name: 'title', label: 'Title', kind: 'text', maxLength: 200 },
  { name: 'description', label: 'Description', kind: 'textarea', maxLength: 20_000 },
  { name: 'category', label: 'Category', kind: 'text', maxLength: 100 },
  {
    name: 'format',
    label: 'Format',
    kind: 'select',
    options: challengeFormatOptions,
    hint: 'solo, text and code: one submission judged alone; head_to_head and game: agents meet in matches (then fill the match settings; a template below fills both)',
  },
  { name: 'weight_class_id', label: 'Weight class', kind: 'text', maxLength: 100, hint: 'e.g. open' },
  {
    name: 'time_limit_minutes',
    label: 'Time limit (minutes)',
    kind: 'integer',
    nullable: true,
    hint: 'empty: none',
  },
  {
    name: 'entry_fee_cents',
    label: 'Entry fee (cents)',
    kind: 'integer',
    nullable: true,
    hint: 'empty: none',
  },
  { name: 'prize_pool', label: 'Prize pool', kind: 'number', nullable: true, hint: 'empty: none' },
  {
    name: 'starts_at',
    label: 'Starts at',
    kind: 'instant',
    nullable: true,
    hint: 'ISO 8601 with offset, e.g. 2025-07-01T12:00:00Z; empty: at publication',
  },
  {
    name: 'ends_at',
    label: 'Ends at',
    kind: 'instant',
    nullable: true,
    hint: 'ISO 8601 with offset; empty: open-ended',
  },
  { name: 'is_featured', label: 'Featured', kind: 'checkbox' },
  { name: 'is_daily', label: 'Daily', kind: 'checkbox' },
  { name: 'max_submissions_per_session', label: 'Submissions per session (at most)', kind: 'integer' },
  {
    name: 'max_submissions_per_day',
    label: 'Submissions per day (at most)',
    kind: 'integer',
    nullable: true,
    hint: 'empty: no daily limit',
  },
  {
    name: 'final_submissions',
    label: 'Final submissions per agent',
    kind: 'integer',
    blankIsDefault: true,
    hint: '1 to 100: how many submissions a competitor may select for the final board; empty: 2 (or unchanged)',
  },
  {
    name: 'freeze_minutes',
    label: 'Freeze (minutes before the end)',
    kind: 'integer',
    blankIsDefault: true,
    hint: 'in the last N minutes the public board stops changing for all but operators; 0 or empty: no freeze (or unchanged)',
  },
  {
    name: 'judge',
    label: 'Judge config (JSON)',
    kind: 'json',
    hint: 'kind "rubric", "tests", "program", "http" or "game"; the same schema as POST /api/v1/admin/challenges',
  },
  {
    name: 'match',
    label: 'Match settings (JSON)',
    kind: 'json',
    nullable: true,
    hint: 'head_to_head and game formats only, e.g. {"players": 2, "every_minutes": 10}; empty for solo formats',
  },
];

/** The form as typed: one string per field ('on' for a ticked box), plus the dry run's sample. */
export type ChallengeFormValues = Record<string, string>;
/** Errors by field name ('' for the form as a whole). */
export type FieldErrors = Record<string, string[]>;

/** A stored challenge as the form shows it. */
export function formValuesOf(row: object): ChallengeFormValues {
  const out: ChallengeFormValues = {};
  for (const f of CHALLENGE_FIELDS) {
    const v = (row as Record<string, unknown>)[f.name];
    if (f.kind === 'json')
      out[f.name] = f.nullable && (v === null || v === undefined) ? '' : JSON.stringify(v, null, 2);
    else if (f.kind === 'checkbox') out[f.name] = v ? 'on' : '';
    else if (v instanceof Date) out[f.name] = v.toISOString();
    else out[f.name] = v === null || v === undefined ? '' : String(v);
  }
  const version = (row as { version?: unknown }).version;
  if (typeof version === 'number') {
    out.version = String(version);
    out.base = formBaseOf(out);
  }
  return out;
}

/**
 * A digest of the fields as the form showed them when it was opened (sent back as `base`): the
 * version moves with every write of the row, the lifecycle's own bookkeeping included (the start
 * it records seconds after publishing), and a save whose fields nobody else changed since need
 * not be refused for that (console-routes.ts, decisions/operators.md).
 */
export function formBaseOf(values: ChallengeFormValues): string {
  const hash = createHash('sha256');
  for (const f of CHALLENGE_FIELDS) hash.update(`${f.name}\0${values[f.name] ?? ''}\0`);
  return hash.digest('base64url').slice(0, 32);
}

/** A new draft's starting values (the API's defaults, the rubric template to edit). */
export const NEW_CHALLENGE_VALUES: ChallengeFormValues = {
  title: '',
  description: '',
  category: '',
  format: 'solo',
  weight_class_id: 'open',
  time_limit_minutes: '',
  entry_fee_cents: '',
  prize_pool: '',
  starts_at: '',
  ends_at: '',
  is_featured: '',
  is_daily: '',
  max_submissions_per_session: '10',
  max_submissions_per_day: '',
  final_submissions: '2',
  freeze_minutes: '0',
  judge: judgeTemplateText('rubric'),
  match: '',
  sample: '',
};

/**
 * Templates for a new draft (`/admin/challenges/new?template=<id>`), one per format (Codabench's
 * organizer templates): the format, its judge config and, for match formats, the match settings,
 * each with a sample for the dry run. `rubric` and `program` are the older ids of `solo` and a
 * program-judged `code` challenge, kept so links keep working.
 */
export const CHALLENGE_TEMPLATES: Readonly<
  Record<string, { label: string; values: Partial<ChallengeFormValues> }>
> = {
  solo: {
    label: 'solo: a rubric judges one submission',
    values: { format: 'solo', judge: judgeTemplateText('rubric') },
  },
  text: {
    label: 'text: a written answer checked by a rubric',
    values: {
      format: 'text',
      judge: JSON.stringify(
        {
          kind: 'rubric',
          criteria: [
            { name: 'names the answer', weight: 2, check: { type: 'contains', value: '42' } },
            { name: 'short', weight: 1, check: { type: 'length', max: 200 } },
          ],
        },
        null,
        2,
      ),
      sample: 'The answer is 42.',
    },
  },
  code: {
    label: 'code: exported functions run against tests',
    values: {
      format: 'code',
      judge: judgeTemplateText('tests'),
      sample:
        "```ts\n// src/solution.ts\nexport function reverse(s: string): string {\n  return [...s].reverse().join('');\n}\n```",
    },
  },
  program: {
    label: 'code: a program reads stdin, writes stdout',
    values: {
      format: 'code',
      judge: JSON.stringify(
        {
          kind: 'program',
          tests: [{ name: 'sum', stdin: '1 2\n', expected_stdout: '3\n' }],
        },
        null,
        2,
      ),
      sample: '```python\na, b = map(int, input().split())\nprint(a + b)\n```',
    },
  },
  head_to_head: {
    label: 'head_to_head: two agents, one bout, the better score wins',
    values: {
      format: 'head_to_head',
      time_limit_minutes: '10',
      judge: judgeTemplateText('tests'),
      match: JSON.stringify({ players: 2, every_minutes: 10, rated: true }, null, 2),
      sample:
        "```ts\n// src/solution.ts\nexport function reverse(s: string): string {\n  return [...s].reverse().join('');\n}\n```",
    },
  },
  game: {
    label: 'game: programs play each other',
    values: {
      format: 'game',
      judge: JSON.stringify(
        {
          kind: 'game',
          game: 'connect-four',
          turn_ms: 1000,
          bank_ms: 10000,
          memory_mb: 256,
          games_per_match: 2,
        },
        null,
        2,
      ),
      match: JSON.stringify({ players: 2, every_minutes: 10, rated: true }, null, 2),
      sample: [
        '```python',
        'import json, sys',
        'for line in sys.stdin:',
        '    message = json.loads(line)',
        '    if message.get("done"):',
        '        break',
        '    print(json.dumps({"action": message["observation"]["legal_actions"][0]}), flush=True)',
        '```',
      ].join('\n'),
    },
  },
};

/** Older template ids, still accepted in links. */
const TEMPLATE_ALIASES: Readonly<Record<string, string>> = { rubric: 'solo' };

/** The template ids the console offers, one per format (program is the second `code` one). */
export const TEMPLATE_MENU = ['solo', 'text', 'code', 'program', 'head_to_head', 'game'] as const;

/** A new draft's values from a template id (unknown or absent: the plain defaults). */
export function newChallengeValues(template: string | undefined): ChallengeFormValues {
  const id = template !== undefined ? (TEMPLATE_ALIASES[template] ?? template) : undefined;
  const chosen =
    id !== undefined && Object.hasOwn(CHALLENGE_TEMPLATES, id) ? CHALLENGE_TEMPLATES[id] : undefined;
  return { ...NEW_CHALLENGE_VALUES, ...(chosen?.values ?? {}) } as ChallengeFormValues;
}

const fieldId = (name: string) => `f-${name.replace(/_/g, '-')}`;

function fieldHtml(f: ChallengeField, value: string, errors: string[] | undefined): SafeHtml {
  const id = fieldId(f.name);
  const errId = `err-${f.name}`;
  const hintId = `hint-${f.name}`;
  const described = [f.hint ? hintId : '', errors?.length ? errId : ''].filter(Boolean).join(' ');
  const aria = html`${errors?.length && html` aria-invalid="true"`}${described && html` aria-describedby="${described}"`}`;
  const max = f.maxLength && html` maxlength="${f.maxLength}"`;
  const hint = f.hint ? html`<span class="small muted" id="${hintId}">${f.hint}</span>` : '';
  const err = errors?.length
    ? html`<p class="field-error" id="${errId}">${joinHtml(errors, html`<br>`)}</p>`
    : '';
  if (f.kind === 'checkbox')
    return html`<div><label class="check" for="${id}"><span><input type="checkbox" id="${id}" name="${f.name}"${value === 'on' ? ' checked' : ''}${aria}> ${f.label}</span></label>${err}</div>`;
  let control: SafeHtml;
  if (f.kind === 'select') {
    const options = f.options ?? [];
    const choices = options.includes(value) || value === '' ? options : [...options, value];
    control = html`<select id="${id}" name="${f.name}"${aria}>${choices.map(
      (o) =>
        html`<option value="${o}"${o === value ? ' selected' : ''}>${o}${options.includes(o) ? '' : ' (stored; no longer offered)'}</option>`,
    )}</select>`;
  } else if (f.kind === 'textarea' || f.kind === 'json') {
    const rows = f.kind === 'json' ? 18 : 5;
    control = html`<textarea id="${id}" name="${f.name}" rows="${rows}"${max}${aria} spellcheck="false">${value}</textarea>`;
  } else {
    // Numbers stay text inputs so a wrong value comes back as typed, with its error beside it.
    const mode =
      f.kind === 'integer'
        ? html` inputmode="numeric"`
        : f.kind === 'number'
          ? html` inputmode="decimal"`
          : '';
    control = html`<input id="${id}" name="${f.name}" value="${value}"${max}${mode}${aria}>`;
  }
  return html`<div><label for="${id}">${f.label}${control}</label>${hint}${err}</div>`;
}

function errorSummary(errors: FieldErrors): SafeHtml {
  const items = Object.entries(errors).flatMap(([name, messages]) =>
    messages.map((m) => {
      const field = CHALLENGE_FIELDS.find((f) => f.name === name);
      if (name === 'sample') return html`<li><a href="#f-sample">Sample submission</a>: ${m}</li>`;
      if (name === TESTS_FILE_FIELD)
        return html`<li><a href="#f-tests-file">Import tests from a file</a>: ${m}</li>`;
      if (name === TEST_ROWS_FIELD) return html`<li><a href="#judge-tests">Add tests</a>: ${m}</li>`;
      const row = /^test_row_(\d+)$/.exec(name);
      if (row)
        return html`<li><a href="#test-input-${Number(row[1]) + 1}">New test ${Number(row[1]) + 1}</a>: ${m}</li>`;
      return field
        ? html`<li><a href="#${fieldId(name)}">${field.label}</a>: ${m}</li>`
        : html`<li>${m}</li>`;
    }),
  );
  if (!items.length) return html``;
  return html`<div class="error-summary" role="alert" id="form-errors"><h2>The challenge was not saved</h2><ul>${items}</ul></div>`;
}

export type DryRunOutcome =
  { ok: true; workflowId: string; breakdown: AdminBreakdown } | { ok: false; message: string };

function dryRunHtml(dryRun: DryRunOutcome | undefined): SafeHtml | '' {
  if (!dryRun) return '';
  if (!dryRun.ok)
    return html`<section id="dry-run-result" aria-labelledby="dry-run-title"><h2 id="dry-run-title">Dry run</h2><p class="error-summary" role="alert">${dryRun.message}</p></section>`;
  const b = dryRun.breakdown;
  const rows = b.criteria.map(
    (c) =>
      html`<tr><td>${c.name}${c.hidden ? html` <span class="badge">hidden</span>` : ''}</td><td class="num">${c.weight}</td><td class="num">${formatScore(c.score)}</td><td>${c.passed ? 'passed' : 'not passed'}</td><td class="detail">${c.feedback}</td></tr>`,
  );
  return html`<section id="dry-run-result" aria-labelledby="dry-run-title">
<h2 id="dry-run-title">Dry run: score <span id="dry-run-score">${formatScore(b.final_score)}</span></h2>
<p role="status">${b.result_state} · ${b.summary} <span class="muted small">(nothing was recorded; judged by workflow <code>${dryRun.workflowId}</code>)</span></p>
${rows.length ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Dry run breakdown"><table id="dry-run-criteria"><caption class="sr-only">Dry run breakdown by criterion</caption><thead><tr><th scope="col">Criterion</th><th scope="col" class="num">Weight</th><th scope="col" class="num">Score</th><th scope="col">Outcome</th><th scope="col">Feedback</th></tr></thead><tbody>${rows}</tbody></table></div>` : ''}
${b.details ? html`<h3>Details</h3><pre tabindex="0">${JSON.stringify(b.details, null, 2)}</pre>` : ''}
</section>`;
}

/**
 * An edit refused because someone else saved first (412 from the version check): the fields where
 * what is saved now (theirs) and what this operator typed (yours) differ.
 */
export interface EditConflict {
  yourVersion: number;
  theirVersion: number;
  fields: { name: string; theirs: string; yours: string }[];
}

function conflictHtml(conflict: EditConflict | undefined): SafeHtml | '' {
  if (!conflict) return '';
  const label = (name: string) => CHALLENGE_FIELDS.find((f) => f.name === name)?.label ?? name;
  const rows = conflict.fields.map(
    (f) =>
      html`<tr data-field="${f.name}"><th scope="row">${label(f.name)}</th><td class="detail"><pre class="value theirs">${f.theirs}</pre></td><td class="detail"><pre class="value yours">${f.yours}</pre></td></tr>`,
  );
  return html`<section class="error-summary" role="alert" id="edit-conflict" aria-labelledby="conflict-title">
<h2 id="conflict-title">Not saved: someone else saved this challenge while you were editing</h2>
<p>You started from version ${conflict.yourVersion}; the saved challenge is now at version ${conflict.theirVersion}. Nothing of yours was saved. Compare, then keep theirs (reload the page) or save yours again below, which replaces theirs.</p>
${rows.length ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Their values and yours"><table id="conflict-table"><caption class="sr-only">Fields that differ: saved now (theirs) and typed here (yours)</caption><thead><tr><th scope="col">Field</th><th scope="col">Theirs (saved, version ${conflict.theirVersion})</th><th scope="col">Yours (not saved)</th></tr></thead><tbody>${rows}</tbody></table></div>` : html`<p>Your values and theirs are the same in every field.</p>`}
</section>`;
}

export interface ChallengeLifecycleView {
  id: string;
  title: string;
  status: string;
  format: string;
  quarantine_reason: string | null;
  published_at: Date | null;
  quarantined_at: Date | null;
  retired_at: Date | null;
  updated_at: Date;
}

function lifecycleHtml(c: ChallengeLifecycleView): SafeHtml {
  const actions = [
    c.status !== 'active'
      ? html`<a class="button" href="/admin/challenges/${c.id}/publish">Publish…</a>`
      : '',
    c.status === 'active'
      ? html`<a class="button" href="/admin/challenges/${c.id}/quarantine">Quarantine…</a>`
      : '',
    c.status !== 'archived'
      ? html`<a class="button" href="/admin/challenges/${c.id}/retire">Retire…</a>`
      : '',
    // Exhibitions run only in an active match challenge (domain/matches/exhibition.ts).
    c.status === 'active' && (c.format === 'head_to_head' || c.format === 'game')
      ? html`<a class="button" href="/admin/challenges/${c.id}/exhibition" id="exhibition-link">Start an exhibition…</a>`
      : '',
  ];
  return html`<section aria-labelledby="lifecycle-title">
<h2 id="lifecycle-title">Status ${statusBadge(c.status)}</h2>
<p class="facts"><span>published ${fmtTime(c.published_at)}</span><span>quarantined ${fmtTime(c.quarantined_at)}</span><span>retired ${fmtTime(c.retired_at)}</span><span>updated ${fmtTime(c.updated_at)}</span></p>
${c.quarantine_reason ? html`<p class="notice">Quarantined: ${c.quarantine_reason}</p>` : ''}
<div class="actions">${actions}<a href="/admin/challenges/${c.id}/submissions">Submissions</a><a href="/admin/challenges/${c.id}/rejudge" id="rejudge-all-link">Rejudge all…</a>${c.status !== 'draft' ? html`<a href="/admin/clarifications?challenge_id=${c.id}#announce" id="announce-link">Announce…</a>` : ''}${c.status !== 'draft' ? html`<a href="/challenges/${c.id}">Public page</a>` : ''}</div>
</section>`;
}

export function renderChallengeFormPage(input: {
  /** null: a new draft. */
  challenge: ChallengeLifecycleView | null;
  values: ChallengeFormValues;
  errors: FieldErrors;
  notice?: string;
  dryRun?: DryRunOutcome;
  /** The edit was refused by the version check: theirs and yours side by side. */
  conflict?: EditConflict;
  /** The kind just chosen for a template (else the editor follows the box's JSON). */
  judgeKind?: JudgeKind | null;
  /** The rows typed for new tests (kept when the form comes back). */
  tests?: JudgeTestsState;
  csrfToken: string;
  account: HeaderAccount;
}): RenderedPage {
  const c = input.challenge;
  const action = c ? `/admin/challenges/${c.id}` : '/admin/challenges';
  const dryRunAction = c ? `/admin/challenges/${c.id}/dry-run` : '/admin/challenges/new/dry-run';
  const title = c ? `Edit: ${c.title}` : 'New draft challenge';
  const sampleErrors = input.errors.sample;
  const templateAction = c
    ? `/admin/challenges/${c.id}/judge-template`
    : '/admin/challenges/new/judge-template';
  const fields = CHALLENGE_FIELDS.map((f) =>
    f.name === 'judge'
      ? judgeEditorHtml({
          value: input.values.judge ?? '',
          errors: input.errors.judge,
          selectedKind: input.judgeKind ?? null,
          templateAction,
          testsAction: c ? `/admin/challenges/${c.id}/judge-tests` : '/admin/challenges/new/judge-tests',
          tests: input.tests,
          allErrors: input.errors,
        })
      : fieldHtml(f, input.values[f.name] ?? '', input.errors[f.name]),
  );
  const body = html`<p class="muted small"><a href="/admin/challenges">← Challenges</a></p>
<h1>${title}</h1>
${input.notice ? html`<p class="ok" role="status" id="notice">${input.notice}</p>` : ''}
${conflictHtml(input.conflict)}
${c ? lifecycleHtml(c) : ''}
${
  c
    ? ''
    : html`<nav aria-label="Judge templates"><p class="small">Start from a template: ${joinHtml(
        TEMPLATE_MENU.map(
          (id) => html`<a href="/admin/challenges/new?template=${id}">${CHALLENGE_TEMPLATES[id]!.label}</a>`,
        ),
        ' · ',
      )}</p></nav>`
}
<h2>${c ? 'Fields' : 'Fields of the draft'}</h2>
${errorSummary(input.errors)}
<form class="stack wide" method="post" action="${action}" enctype="multipart/form-data" aria-label="${c ? 'Edit the challenge' : 'Create a draft challenge'}">${csrfField(input.csrfToken)}
${c && input.values.version ? html`<input type="hidden" name="version" value="${input.values.version}">` : ''}
${c && input.values.base ? html`<input type="hidden" name="base" value="${input.values.base}">` : ''}
${joinHtml(fields, '\n')}
<div class="actions"><button type="submit" id="save">${c ? 'Save changes' : 'Create draft'}</button></div>
<fieldset><legend>Dry run (records nothing)</legend>
<p class="small muted">Judges the sample with the judge config above as it is typed now (saved or not), on a worker. A game judge plays the sample (a program) against the game's baseline bot.</p>
<label for="f-sample">Sample submission<textarea id="f-sample" name="sample" rows="6" maxlength="100000"${sampleErrors?.length ? html` aria-invalid="true" aria-describedby="err-sample"` : ''}>${input.values.sample ?? ''}</textarea></label>
${sampleErrors?.length ? html`<p class="field-error" id="err-sample">${joinHtml(sampleErrors, html`<br>`)}</p>` : ''}
<div class="actions"><button type="submit" class="secondary" id="dry-run" formaction="${dryRunAction}#dry-run-result">Dry-run the sample</button></div>
</fieldset>
</form>
${dryRunHtml(input.dryRun)}`;
  return consolePage({
    title,
    section: 'challenges',
    body,
    account: input.account,
    script: JUDGE_TESTS_SCRIPT,
  });
}

// ---- reading the form ----------------------------------------------------------------------------

/** What was typed in every box (the sample too), '' for a box not sent. */
export const valuesOf = (form: ParsedForm | null): ChallengeFormValues => {
  const out: ChallengeFormValues = {};
  for (const f of [...CHALLENGE_FIELDS.map((x) => x.name), 'sample', 'version', 'base', 'judge_kind'])
    out[f] = form?.fields[f]?.[0] ?? '';
  return out;
};

export const addError = (errors: FieldErrors, field: string, message: string) => {
  (errors[field] ??= []).push(message);
};

export const hasErrors = (errors: FieldErrors) => Object.keys(errors).length > 0;

/** zod issues by field: the first path segment names the field, the rest (judge.criteria.0.weight) stays in the message. */
export function issuesToErrors(
  issues: z.ZodIssue[],
  errors: FieldErrors,
  rename: Record<string, string> = {},
): void {
  for (const issue of issues) {
    const [head, ...rest] = issue.path.map(String);
    const field = head === undefined ? '' : (rename[head] ?? head);
    addError(errors, field, rest.length ? `${[head, ...rest].join('.')}: ${issue.message}` : issue.message);
  }
}

/**
 * A domain refusal next to the fields it names (its structured `fields`: a form field, or the
 * summary for one the form does not show); without fields, in the summary.
 */
export function domainErrorsToFields(err: ServiceError, errors: FieldErrors): void {
  if (!err.fields) return addError(errors, '', err.message);
  for (const [field, message] of Object.entries(err.fields))
    if (CHALLENGE_FIELDS.some((f) => f.name === field)) addError(errors, field, message);
    else addError(errors, '', `${field}: ${message}`);
}

/** Runs a domain action; a VALIDATION_ERROR comes back as field errors instead of an error page. */
export async function orFieldErrors<T>(
  action: () => Promise<T>,
  errors: FieldErrors,
): Promise<T | undefined> {
  try {
    return await action();
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'VALIDATION_ERROR') {
      domainErrorsToFields(err, errors);
      return undefined;
    }
    throw err;
  }
}

/** A string PostgreSQL cannot store (a NUL or a lone surrogate written as a JSON escape), as a field error. */
export function unstorableJson(field: string, value: unknown, errors: FieldErrors): void {
  const problem = unstorableString(value);
  if (problem) addError(errors, field, `${[field, ...problem.path].join('.')}: ${problem.message}`);
}

/** The typed form as the API's request body; boxes that cannot be read (not a number, not JSON) are errors. */
export function challengeInput(values: ChallengeFormValues): {
  input: Record<string, unknown>;
  errors: FieldErrors;
} {
  const input: Record<string, unknown> = {};
  const errors: FieldErrors = {};
  for (const f of CHALLENGE_FIELDS) {
    const raw = values[f.name] ?? '';
    const trimmed = raw.trim();
    switch (f.kind) {
      case 'text':
      case 'select':
      case 'textarea':
        input[f.name] = raw;
        break;
      case 'checkbox':
        input[f.name] = raw !== '';
        break;
      case 'integer':
      case 'number': {
        if (trimmed === '') {
          if (f.blankIsDefault) break;
          if (f.nullable) input[f.name] = null;
          else addError(errors, f.name, 'required');
          break;
        }
        const n = Number(trimmed);
        if (!Number.isFinite(n)) addError(errors, f.name, 'must be a number');
        else if (f.kind === 'integer' && !Number.isInteger(n))
          addError(errors, f.name, 'must be a whole number');
        else input[f.name] = n;
        break;
      }
      case 'instant':
        input[f.name] = trimmed === '' ? null : trimmed;
        break;
      case 'json':
        if (f.nullable && trimmed === '') {
          input[f.name] = null;
          break;
        }
        try {
          input[f.name] = JSON.parse(raw);
        } catch (err) {
          addError(errors, f.name, `not valid JSON: ${(err as Error).message}`);
          break;
        }
        unstorableJson(f.name, input[f.name], errors);
        break;
    }
  }
  return { input, errors };
}

/**
 * Only the fields that differ from the stored challenge (the audit record names what was changed).
 * A judge config is compared as canonical JSON: key order does not matter (jsonb does not keep it).
 */
export function changedFields(input: Record<string, unknown>, row: ChallengeRow): Record<string, unknown> {
  const changed: Record<string, unknown> = {};
  for (const f of CHALLENGE_FIELDS) {
    if (!(f.name in input)) continue;
    const typed = input[f.name];
    const stored = (row as unknown as Record<string, unknown>)[f.name];
    let same: boolean;
    if (f.kind === 'json') same = canonicalJson(typed) === canonicalJson(stored);
    else if (f.kind === 'instant')
      same =
        typed === null
          ? stored === null
          : stored instanceof Date && typeof typed === 'string' && Date.parse(typed) === stored.getTime();
    else if (f.kind === 'number' || f.kind === 'integer')
      same = typed === null ? stored === null : stored !== null && Number(stored) === typed;
    else same = typed === stored;
    if (!same) changed[f.name] = typed;
  }
  return changed;
}

/** The fields where the saved challenge (theirs) and the typed form (yours) differ, as the form shows them. */
export function editConflict(
  yourVersion: number,
  input: Record<string, unknown>,
  current: ChallengeRow,
): EditConflict {
  const theirs = formValuesOf(current);
  const differing = changedFields(input, current);
  return {
    yourVersion,
    theirVersion: current.version,
    fields: CHALLENGE_FIELDS.filter((f) => f.name in differing).map((f) => ({
      name: f.name,
      theirs: theirs[f.name] ?? '',
      yours:
        f.kind === 'json'
          ? JSON.stringify(input[f.name], null, 2)
          : f.kind === 'checkbox'
            ? input[f.name]
              ? 'on'
              : ''
            : input[f.name] === null || input[f.name] === undefined
              ? ''
              : String(input[f.name]),
    })),
  };
}
