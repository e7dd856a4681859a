/**
 * The console's challenge form (create a draft, edit any challenge) with its dry run: every
 * operator-editable field, the judge config as JSON, each validation error next to its field (the
 * API's own schemas decide; src/api/routes/admin-pages.ts), and what the operator typed kept.
 */
import type { AdminBreakdown } from '../judging';
import { formatScore } from '../lib/score';
import { csrfField } from './account-pages';
import { consolePage, fmtTime, statusBadge } from './admin-pages';
import { type HeaderAccount, type RenderedPage } from './layout';
import { html, joinHtml, type SafeHtml } from './html';

export type ChallengeFieldKind = 'text' | 'textarea' | 'integer' | 'number' | 'instant' | 'checkbox' | 'json';

export interface ChallengeField {
  name: string;
  label: string;
  kind: ChallengeFieldKind;
  /** An empty box means null (no limit, no time…); otherwise an empty box is an error. */
  nullable?: boolean;
  hint?: string;
  maxLength?: number;
}

/** Every operator-editable field, in the form's order (createChallengeBody's fields). */
export const CHALLENGE_FIELDS: readonly ChallengeField[] = [
  { name: 'title', label: 'Title', kind: 'text', maxLength: 200 },
  { name: 'description', label: 'Description', kind: 'textarea', maxLength: 20_000 },
  { name: 'category', label: 'Category', kind: 'text', maxLength: 100 },
  { name: 'format', label: 'Format', kind: 'text', maxLength: 100, hint: 'e.g. solo' },
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
    name: 'judge',
    label: 'Judge config (JSON)',
    kind: 'json',
    hint: 'kind "rubric", "tests", "program" or "http"; the same schema as POST /api/v1/admin/challenges',
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
    if (f.kind === 'json') out[f.name] = JSON.stringify(v, null, 2);
    else if (f.kind === 'checkbox') out[f.name] = v ? 'on' : '';
    else if (v instanceof Date) out[f.name] = v.toISOString();
    else out[f.name] = v === null || v === undefined ? '' : String(v);
  }
  return out;
}

/** A new draft's starting values (the API's defaults, a small rubric to edit). */
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
  judge: JSON.stringify(
    {
      kind: 'rubric',
      criteria: [{ name: 'answer', weight: 1, check: { type: 'contains', value: '42' } }],
    },
    null,
    2,
  ),
  sample: '',
};

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
  if (f.kind === 'textarea' || f.kind === 'json') {
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

export interface ChallengeLifecycleView {
  id: string;
  title: string;
  status: string;
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
  ];
  return html`<section aria-labelledby="lifecycle-title">
<h2 id="lifecycle-title">Status ${statusBadge(c.status)}</h2>
<p class="facts"><span>published ${fmtTime(c.published_at)}</span><span>quarantined ${fmtTime(c.quarantined_at)}</span><span>retired ${fmtTime(c.retired_at)}</span><span>updated ${fmtTime(c.updated_at)}</span></p>
${c.quarantine_reason ? html`<p class="notice">Quarantined: ${c.quarantine_reason}</p>` : ''}
<div class="actions">${actions}<a href="/admin/challenges/${c.id}/submissions">Submissions</a>${c.status !== 'draft' ? html`<a href="/challenges/${c.id}">Public page</a>` : ''}</div>
</section>`;
}

export function renderChallengeFormPage(input: {
  /** null: a new draft. */
  challenge: ChallengeLifecycleView | null;
  values: ChallengeFormValues;
  errors: FieldErrors;
  notice?: string;
  dryRun?: DryRunOutcome;
  csrfToken: string;
  account: HeaderAccount;
}): RenderedPage {
  const c = input.challenge;
  const action = c ? `/admin/challenges/${c.id}` : '/admin/challenges';
  const dryRunAction = c ? `/admin/challenges/${c.id}/dry-run` : '/admin/challenges/new/dry-run';
  const title = c ? `Edit: ${c.title}` : 'New draft challenge';
  const sampleErrors = input.errors.sample;
  const fields = CHALLENGE_FIELDS.map((f) => fieldHtml(f, input.values[f.name] ?? '', input.errors[f.name]));
  const body = html`<p class="muted small"><a href="/admin/challenges">← Challenges</a></p>
<h1>${title}</h1>
${input.notice ? html`<p class="ok" role="status" id="notice">${input.notice}</p>` : ''}
${c ? lifecycleHtml(c) : ''}
<h2>${c ? 'Fields' : 'Fields of the draft'}</h2>
${errorSummary(input.errors)}
<form class="stack wide" method="post" action="${action}" enctype="multipart/form-data" aria-label="${c ? 'Edit the challenge' : 'Create a draft challenge'}">${csrfField(input.csrfToken)}
${joinHtml(fields, '\n')}
<div class="actions"><button type="submit" id="save">${c ? 'Save changes' : 'Create draft'}</button></div>
<fieldset><legend>Dry run (records nothing)</legend>
<p class="small muted">Judges the sample with the judge config above as it is typed now (saved or not), on a worker.</p>
<label for="f-sample">Sample submission<textarea id="f-sample" name="sample" rows="6" maxlength="100000"${sampleErrors?.length ? html` aria-invalid="true" aria-describedby="err-sample"` : ''}>${input.values.sample ?? ''}</textarea></label>
${sampleErrors?.length ? html`<p class="field-error" id="err-sample">${joinHtml(sampleErrors, html`<br>`)}</p>` : ''}
<div class="actions"><button type="submit" class="secondary" id="dry-run" formaction="${dryRunAction}#dry-run-result">Dry-run the sample</button></div>
</fieldset>
</form>
${dryRunHtml(input.dryRun)}`;
  return consolePage({ title, section: 'challenges', body, account: input.account });
}
