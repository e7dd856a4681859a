/**
 * The console's challenge form (create a draft, edit any challenge) with its dry run: every
 * operator-editable field, the judge config as JSON, each validation error next to its field (the
 * API's own schemas decide; src/api/routes/admin-pages.ts), and what the operator typed kept.
 */
import type { AdminBreakdown } from '../judging';
import { formatScore } from '../lib/score';
import { csrfField } from './account-pages';
import { consolePage, fmtTime, statusBadge } from './admin-pages';
import { escapeHtml as h, type HeaderAccount, type RenderedPage } from './layout';

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

function fieldHtml(f: ChallengeField, value: string, errors: string[] | undefined): string {
  const id = fieldId(f.name);
  const errId = `err-${f.name}`;
  const hintId = `hint-${f.name}`;
  const described = [f.hint ? hintId : '', errors?.length ? errId : ''].filter(Boolean).join(' ');
  const aria = `${errors?.length ? ' aria-invalid="true"' : ''}${described ? ` aria-describedby="${described}"` : ''}`;
  const max = f.maxLength ? ` maxlength="${f.maxLength}"` : '';
  const hint = f.hint ? `<span class="small muted" id="${hintId}">${h(f.hint)}</span>` : '';
  const err = errors?.length
    ? `<p class="field-error" id="${errId}">${errors.map((e) => h(e)).join('<br>')}</p>`
    : '';
  if (f.kind === 'checkbox')
    return `<div><label class="check" for="${id}"><span><input type="checkbox" id="${id}" name="${f.name}"${value === 'on' ? ' checked' : ''}${aria}> ${h(f.label)}</span></label>${err}</div>`;
  let control: string;
  if (f.kind === 'textarea' || f.kind === 'json') {
    const rows = f.kind === 'json' ? 18 : 5;
    control = `<textarea id="${id}" name="${f.name}" rows="${rows}"${max}${aria} spellcheck="false">${h(value)}</textarea>`;
  } else {
    // Numbers stay text inputs so a wrong value comes back as typed, with its error beside it.
    const mode =
      f.kind === 'integer' ? ' inputmode="numeric"' : f.kind === 'number' ? ' inputmode="decimal"' : '';
    control = `<input id="${id}" name="${f.name}" value="${h(value)}"${max}${mode}${aria}>`;
  }
  return `<div><label for="${id}">${h(f.label)}${control}</label>${hint}${err}</div>`;
}

function errorSummary(errors: FieldErrors): string {
  const items = Object.entries(errors).flatMap(([name, messages]) =>
    messages.map((m) => {
      const field = CHALLENGE_FIELDS.find((f) => f.name === name);
      if (name === 'sample') return `<li><a href="#f-sample">Sample submission</a>: ${h(m)}</li>`;
      return field
        ? `<li><a href="#${fieldId(name)}">${h(field.label)}</a>: ${h(m)}</li>`
        : `<li>${h(m)}</li>`;
    }),
  );
  if (!items.length) return '';
  return `<div class="error-summary" role="alert" id="form-errors"><h2>The challenge was not saved</h2><ul>${items.join('')}</ul></div>`;
}

export type DryRunOutcome =
  { ok: true; workflowId: string; breakdown: AdminBreakdown } | { ok: false; message: string };

function dryRunHtml(dryRun: DryRunOutcome | undefined): string {
  if (!dryRun) return '';
  if (!dryRun.ok)
    return `<section id="dry-run-result" aria-labelledby="dry-run-title"><h2 id="dry-run-title">Dry run</h2><p class="error-summary" role="alert">${h(dryRun.message)}</p></section>`;
  const b = dryRun.breakdown;
  const rows = b.criteria
    .map(
      (c) =>
        `<tr><td>${h(c.name)}${c.hidden ? ' <span class="badge">hidden</span>' : ''}</td><td class="num">${c.weight}</td><td class="num">${h(formatScore(c.score))}</td><td>${c.passed ? 'passed' : 'not passed'}</td><td class="detail">${h(c.feedback)}</td></tr>`,
    )
    .join('');
  return `<section id="dry-run-result" aria-labelledby="dry-run-title">
<h2 id="dry-run-title">Dry run: score <span id="dry-run-score">${h(formatScore(b.final_score))}</span></h2>
<p role="status">${h(b.result_state)} · ${h(b.summary)} <span class="muted small">(nothing was recorded; judged by workflow <code>${h(dryRun.workflowId)}</code>)</span></p>
${rows ? `<div class="table-wrap" tabindex="0" role="region" aria-label="Dry run breakdown"><table id="dry-run-criteria"><caption class="sr-only">Dry run breakdown by criterion</caption><thead><tr><th scope="col">Criterion</th><th scope="col" class="num">Weight</th><th scope="col" class="num">Score</th><th scope="col">Outcome</th><th scope="col">Feedback</th></tr></thead><tbody>${rows}</tbody></table></div>` : ''}
${b.details ? `<h3>Details</h3><pre tabindex="0">${h(JSON.stringify(b.details, null, 2))}</pre>` : ''}
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

function lifecycleHtml(c: ChallengeLifecycleView): string {
  const actions = [
    c.status !== 'active' ? `<a class="button" href="/admin/challenges/${h(c.id)}/publish">Publish…</a>` : '',
    c.status === 'active'
      ? `<a class="button" href="/admin/challenges/${h(c.id)}/quarantine">Quarantine…</a>`
      : '',
    c.status !== 'archived' ? `<a class="button" href="/admin/challenges/${h(c.id)}/retire">Retire…</a>` : '',
  ].join('');
  return `<section aria-labelledby="lifecycle-title">
<h2 id="lifecycle-title">Status ${statusBadge(c.status)}</h2>
<p class="facts"><span>published ${h(fmtTime(c.published_at))}</span><span>quarantined ${h(fmtTime(c.quarantined_at))}</span><span>retired ${h(fmtTime(c.retired_at))}</span><span>updated ${h(fmtTime(c.updated_at))}</span></p>
${c.quarantine_reason ? `<p class="notice">Quarantined: ${h(c.quarantine_reason)}</p>` : ''}
<div class="actions">${actions}<a href="/admin/challenges/${h(c.id)}/submissions">Submissions</a>${c.status !== 'draft' ? `<a href="/challenges/${h(c.id)}">Public page</a>` : ''}</div>
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
  const fields = CHALLENGE_FIELDS.map((f) =>
    fieldHtml(f, input.values[f.name] ?? '', input.errors[f.name]),
  ).join('\n');
  const body = `<p class="muted small"><a href="/admin/challenges">← Challenges</a></p>
<h1>${h(title)}</h1>
${input.notice ? `<p class="ok" role="status" id="notice">${h(input.notice)}</p>` : ''}
${c ? lifecycleHtml(c) : ''}
<h2>${c ? 'Fields' : 'Fields of the draft'}</h2>
${errorSummary(input.errors)}
<form class="stack wide" method="post" action="${h(action)}" enctype="multipart/form-data" aria-label="${c ? 'Edit the challenge' : 'Create a draft challenge'}">${csrfField(input.csrfToken)}
${fields}
<div class="actions"><button type="submit" id="save">${c ? 'Save changes' : 'Create draft'}</button></div>
<fieldset><legend>Dry run (records nothing)</legend>
<p class="small muted">Judges the sample with the judge config above as it is typed now (saved or not), on a worker.</p>
<label for="f-sample">Sample submission<textarea id="f-sample" name="sample" rows="6" maxlength="100000"${sampleErrors?.length ? ' aria-invalid="true" aria-describedby="err-sample"' : ''}>${h(input.values.sample ?? '')}</textarea></label>
${sampleErrors?.length ? `<p class="field-error" id="err-sample">${sampleErrors.map((e) => h(e)).join('<br>')}</p>` : ''}
<div class="actions"><button type="submit" class="secondary" id="dry-run" formaction="${h(dryRunAction)}#dry-run-result">Dry-run the sample</button></div>
</fieldset>
</form>
${dryRunHtml(input.dryRun)}`;
  return consolePage({ title, section: 'challenges', body, account: input.account });
}
