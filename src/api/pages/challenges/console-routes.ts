/**
 * The console's challenges (docs/decisions/operators.md "The console"): every challenge, drafts
 * included; the challenge form (form.ts: create, edit, dry run); the lifecycle's confirmed actions
 * (publish, quarantine, retire). Operators only, audited, CSRF-checked (console/routes.ts).
 */
import { z } from 'zod';
import { CHALLENGE_STATUSES, judgeKindsOf, type ChallengeRow } from '../../../db/queries/challenges';
import type { WebSession } from '../../../domain/accounts/web-sessions';
import { actorOf } from '../../../domain/audit/policy';
import { dryRunJudge } from '../../../domain/challenges/dry-run';
import {
  createChallenge,
  editChallenge,
  challengeStoreOf,
  publishChallenge,
  quarantineChallenge,
  retireChallenge,
} from '../../../domain/challenges/lifecycle';
import { ServiceError } from '../../../errors';
import { judgeConfigSchema } from '../../../judging';
import type { AppDeps } from '../../deps';
import type { ParsedForm } from '../../form-body';
import { htmlPage } from '../../html-page';
import { signedInForm, signedInPage } from '../../page-routes';
import { type AnyRouteDef, uuidParam } from '../../route';
import { listForCaller } from '../../routes/challenges';
import { createChallengeBody, patchChallengeBody, quarantineBody } from '../../schemas/challenges';
import { createSubmissionBody } from '../../schemas/submissions';
import {
  account,
  anyForm,
  blankIsAbsent,
  confirmedForm,
  doneNotices,
  requireConsoleChallenge,
} from '../console/routes';
import { renderConfirmPage } from '../console/view';
import { renderChallengeListPage } from './console-view';
import { countSubmissionsByStatus } from '../../../db/queries/submissions';
import {
  BULK_REJUDGE_STATUSES,
  rejudgeChallenge,
  rejudgeProgress,
  runningRejudgeOf,
} from '../../../domain/submissions/bulk-rejudge';
import { renderRejudgeConfirmPage, renderRejudgeProgressPage } from './rejudge-view';
import {
  newChallengeValues,
  addError,
  challengeInput,
  changedFields,
  formValuesOf,
  hasErrors,
  issuesToErrors,
  orFieldErrors,
  renderChallengeFormPage,
  unstorableJson,
  valuesOf,
  type ChallengeFormValues,
  editConflict,
  type DryRunOutcome,
  type EditConflict,
  type FieldErrors,
} from './form';
import { JUDGE_KINDS, isJudgeKind, judgeTemplateText, type JudgeKind } from './judge-editor-view';
import {
  applyTypedTests,
  testsFileOf,
  testsStateOf,
  withOneMoreRow,
  type JudgeTestsState,
} from './judge-tests';

export function formPage(
  session: WebSession,
  challenge: ChallengeRow | null,
  values: ChallengeFormValues,
  errors: FieldErrors = {},
  extra: {
    notice?: string;
    dryRun?: DryRunOutcome;
    status?: number;
    conflict?: EditConflict;
    judgeKind?: JudgeKind;
    tests?: JudgeTestsState;
  } = {},
) {
  return htmlPage(
    renderChallengeFormPage({
      challenge,
      values,
      errors,
      notice: extra.notice,
      dryRun: extra.dryRun,
      conflict: extra.conflict,
      judgeKind: extra.judgeKind,
      tests: extra.tests,
      csrfToken: session.csrfToken,
      account: account(session),
    }),
    extra.status ?? 200,
  );
}

/** The dry run of the form as typed: the judge box and the sample; other fields are not needed. */
async function dryRunOfForm(
  deps: AppDeps,
  session: WebSession,
  challenge: ChallengeRow | null,
  form: ParsedForm | null,
) {
  const typed = withTypedTests(form);
  if (!typed.ok) return typed.page(session, challenge);
  const { values, tests, moved } = typed;
  const errors: FieldErrors = {};
  let judge: unknown;
  try {
    judge = JSON.parse(values.judge);
    unstorableJson('judge', judge, errors);
  } catch (err) {
    addError(errors, 'judge', `not valid JSON: ${(err as Error).message}`);
  }
  const judgeParsed = judge === undefined ? null : judgeConfigSchema.safeParse(judge);
  if (judgeParsed && !judgeParsed.success)
    issuesToErrors(
      judgeParsed.error.issues.map((i) => ({ ...i, path: ['judge', ...i.path] })),
      errors,
    );
  const sample = createSubmissionBody.safeParse({ content: values.sample });
  if (!sample.success) issuesToErrors(sample.error.issues, errors, { content: 'sample' });
  if (hasErrors(errors) || !judgeParsed?.success || !sample.success)
    return formPage(session, challenge, values, errors, { status: 400, tests, notice: moved });
  let dryRun: DryRunOutcome;
  try {
    const outcome = await dryRunJudge(deps, {
      judge: judgeParsed.data,
      submission: { content: sample.data.content, files: sample.data.files ?? [] },
    });
    dryRun = { ok: true, workflowId: outcome.workflow_id, breakdown: outcome.breakdown };
  } catch (err) {
    if (!(err instanceof ServiceError) || err.code !== 'VALIDATION_ERROR') throw err;
    dryRun = { ok: false, message: err.message };
  }
  return formPage(
    session,
    challenge,
    values,
    {},
    { dryRun, status: dryRun.ok ? 200 : 400, tests, notice: moved },
  );
}

/**
 * The form's values with the rows and the file typed for new tests added to the judge box (save
 * and dry run take what was typed, not only the box); their errors: the form back, 400, nothing
 * saved, the rows as typed.
 */
function withTypedTests(form: ParsedForm | null):
  | { ok: true; values: ChallengeFormValues; tests: JudgeTestsState; moved: string | undefined }
  | {
      ok: false;
      page: (session: WebSession, challenge: ChallengeRow | null) => ReturnType<typeof formPage>;
    } {
  const values = valuesOf(form);
  const typed = applyTypedTests(values.judge, testsStateOf(form), testsFileOf(form));
  if (hasErrors(typed.errors))
    return {
      ok: false,
      page: (session, challenge) =>
        formPage(session, challenge, values, typed.errors, { status: 400, tests: typed.state }),
    };
  const count = typed.added.rows + typed.added.file;
  // Said when the form comes back (an error, a dry run): the box now holds what was typed below it.
  const moved = count
    ? `${count} test${count === 1 ? '' : 's'} typed under the judge box (rows or file) ${count === 1 ? 'is' : 'are'} now in the judge config; nothing was saved.`
    : undefined;
  return { ok: true, values: { ...values, judge: typed.judgeText }, tests: typed.state, moved };
}

/**
 * "Add a row", "Add the rows to the config" and "Import tests from the file": the form as typed
 * comes back with one more row, or with the rows' or the file's tests in the judge box (nothing
 * saved), or with the errors beside the rows or the file (400, the box unchanged).
 */
function judgeTestsOfForm(session: WebSession, challenge: ChallengeRow | null, form: ParsedForm | null) {
  const values = valuesOf(form);
  const state = testsStateOf(form);
  const action = form?.fields.judge_tests_action?.[0];
  if (action === 'add-row') return formPage(session, challenge, values, {}, { tests: withOneMoreRow(state) });
  const file = testsFileOf(form);
  if (action === 'import' && !file)
    return formPage(
      session,
      challenge,
      values,
      { tests_file: ['choose a JSON or JSONL file of tests first'] },
      { status: 400, tests: state },
    );
  const typed = applyTypedTests(values.judge, state, file, action === 'import' ? 'file' : 'rows');
  if (hasErrors(typed.errors))
    return formPage(session, challenge, values, typed.errors, { status: 400, tests: typed.state });
  const { rows, file: fromFile } = typed.added;
  const notice =
    rows + fromFile === 0
      ? 'No test to add: every row is empty.'
      : `${rows + fromFile} test${rows + fromFile === 1 ? '' : 's'} added to the judge config${fromFile ? ` from ${file?.filename || 'the file'}` : ''}; nothing was saved. Check the box, then ${challenge ? 'save the changes' : 'create the draft'}.`;
  return formPage(
    session,
    challenge,
    { ...values, judge: typed.judgeText },
    {},
    { tests: typed.state, notice },
  );
}

/**
 * The form as typed with the judge box replaced by the chosen kind's template (nothing saved, no
 * error shown: the operator edits the template next). An unknown kind keeps the box as it was.
 */
function judgeTemplateOfForm(session: WebSession, challenge: ChallengeRow | null, form: ParsedForm | null) {
  const values = valuesOf(form);
  const kind = values.judge_kind;
  if (!isJudgeKind(kind))
    return formPage(
      session,
      challenge,
      values,
      { judge: [`choose a judge kind: ${JUDGE_KINDS.join(', ')}`] },
      { status: 400, tests: testsStateOf(form) },
    );
  return formPage(
    session,
    challenge,
    { ...values, judge: judgeTemplateText(kind) },
    {},
    {
      judgeKind: kind,
      tests: testsStateOf(form),
      notice: `The judge config box now holds the ${kind} template; nothing was saved. Edit it, then ${challenge ? 'save the changes' : 'create the draft'}.`,
    },
  );
}

const newChallengeQuery = z.object({
  kind: blankIsAbsent(z.enum(JUDGE_KINDS).optional()),
  // rubric|program|game: the judge config (and format, match, sample) to start from.
  template: z.string().max(40).optional(),
});

const { query: doneQuery, noticeOf } = doneNotices({
  created: 'Draft created (recorded in the audit trail).',
  saved: 'Changes saved (recorded in the audit trail).',
  published: 'Published: the challenge is active.',
  'already-active': 'The challenge was already active; its schedule was re-planned.',
  quarantined: 'Quarantined: the challenge is a hidden draft again.',
  retired: 'Retired: the challenge is archived.',
  'already-archived': 'The challenge was already archived.',
});

// ---- confirmations -----------------------------------------------------------------------------

const TRANSITIONS = {
  publish: {
    title: (t: string) => `Publish "${t}"?`,
    explanation:
      'The challenge becomes active: listed, enterable, announced to webhook subscribers (challenge.published), and its start and end are scheduled.',
    label: 'Publish',
  },
  quarantine: {
    title: (t: string) => `Quarantine "${t}"?`,
    explanation:
      'The challenge becomes a hidden draft at once: nobody can see or enter it, and subscribers are told (challenge.quarantined, with the reason). Publish it again to reopen it.',
    label: 'Quarantine',
  },
  retire: {
    title: (t: string) => `Retire "${t}"?`,
    explanation:
      'The challenge is archived: it stays readable with its leaderboard, but nobody can enter or submit any more (challenge.retired).',
    label: 'Retire',
  },
} as const;
export type Transition = keyof typeof TRANSITIONS;

export function confirmTransitionPage(
  session: WebSession,
  row: ChallengeRow,
  action: Transition,
  reason?: { value: string; error?: string },
  status = 200,
  notice?: string,
) {
  const t = TRANSITIONS[action];
  return htmlPage(
    renderConfirmPage({
      title: t.title(row.title),
      explanation: t.explanation,
      action: `/admin/challenges/${row.id}/${action}`,
      confirmLabel: t.label,
      cancelHref: `/admin/challenges/${row.id}`,
      csrfToken: session.csrfToken,
      account: account(session),
      reason: action === 'quarantine' ? (reason ?? { value: '' }) : undefined,
      notice,
    }),
    status,
  );
}

function transitionRoutes(action: Transition): AnyRouteDef[] {
  return [
    signedInPage(
      `consoleConfirm${action[0].toUpperCase()}${action.slice(1)}`,
      `/admin/challenges/:id/${action}`,
      `Console: confirm the ${action} of a challenge`,
      {
        params: uuidParam,
        async handler({ params, deps, webSession }) {
          const row = await requireConsoleChallenge(deps, params.id);
          return confirmTransitionPage(webSession, row, action);
        },
      },
    ),
    signedInForm(
      `console${action[0].toUpperCase()}${action.slice(1)}Form`,
      `/admin/challenges/:id/${action}`,
      `Console form: ${action} a challenge (confirmed; audited)`,
      {
        params: uuidParam,
        body: confirmedForm,
        async handler({ params, deps, principal, webSession, form }) {
          const actor = actorOf(principal);
          if (action === 'quarantine') {
            const reason = form?.fields.reason?.[0] ?? '';
            const parsed = quarantineBody.safeParse({ reason });
            if (!parsed.success) {
              const row = await requireConsoleChallenge(deps, params.id);
              const message = parsed.error.issues.map((i) => i.message).join('; ');
              return confirmTransitionPage(
                webSession,
                row,
                action,
                { value: reason, error: `A reason is required: ${message}` },
                400,
              );
            }
            await quarantineChallenge(deps, actor, params.id, parsed.data.reason);
            return { redirect: `/admin/challenges/${params.id}?done=quarantined`, status: 303 };
          }
          if (action === 'publish') {
            const outcome = await publishChallenge(deps, actor, params.id);
            const done = outcome.changed ? 'published' : 'already-active';
            return { redirect: `/admin/challenges/${params.id}?done=${done}`, status: 303 };
          }
          const outcome = await retireChallenge(deps, actor, params.id);
          const done = outcome.changed ? 'retired' : 'already-archived';
          return { redirect: `/admin/challenges/${params.id}?done=${done}`, status: 303 };
        },
      },
    ),
  ];
}

// ---- listings ----------------------------------------------------------------------------------

const challengeListQuery = z.object({
  status: blankIsAbsent(z.enum(CHALLENGE_STATUSES).optional()),
  page: blankIsAbsent(z.coerce.number().int().min(1).max(100_000).default(1)),
});

// ---- the routes --------------------------------------------------------------------------------

export const consoleChallengeRoutes: AnyRouteDef[] = [
  signedInPage('consoleChallenges', '/admin/challenges', 'Console: every challenge, drafts included', {
    query: challengeListQuery,
    async handler({ query, deps, principal, webSession }) {
      const { rows, pagination } = await listForCaller(deps.db, principal, {
        status: query.status,
        page: query.page,
        limit: 50,
      });
      const kinds = await judgeKindsOf(
        deps.db,
        rows.map((r) => r.id),
      );
      return htmlPage(
        renderChallengeListPage({
          rows: rows.map((r) => ({
            id: r.id,
            title: r.title,
            status: r.status,
            category: r.category,
            judgeKind: kinds.get(r.id) ?? '—',
            entryCount: r.entry_count ?? 0,
            startsAt: r.starts_at,
            endsAt: r.ends_at,
            updatedAt: r.updated_at,
          })),
          statuses: CHALLENGE_STATUSES,
          status: query.status,
          page: query.page,
          hasMore: pagination.has_more,
          account: account(webSession),
        }),
      );
    },
  }),
  signedInPage(
    'consoleNewChallenge',
    '/admin/challenges/new',
    "Console: the form of a new draft challenge (?template= a whole starting point, one per format: solo, text, code, program, head_to_head or game; ?kind= the judge from that kind's template)",
    {
      query: newChallengeQuery,
      async handler({ query, webSession }) {
        const values = newChallengeValues(query.template);
        if (!query.kind) return formPage(webSession, null, values);
        return formPage(
          webSession,
          null,
          { ...values, judge: judgeTemplateText(query.kind) },
          {},
          { judgeKind: query.kind },
        );
      },
    },
  ),
  signedInForm(
    'consoleJudgeTemplateNewForm',
    '/admin/challenges/new/judge-template',
    "Console form: the new draft's form as typed, its judge box replaced by the chosen kind's template (saves nothing)",
    {
      body: anyForm,
      largeBody: true,
      async handler({ webSession, form }) {
        return judgeTemplateOfForm(webSession, null, form);
      },
    },
  ),
  signedInForm(
    'consoleJudgeTestsNewForm',
    '/admin/challenges/new/judge-tests',
    "Console form: the new draft's form as typed with one more test row, or its test rows or tests file added to the judge box (saves nothing)",
    {
      body: anyForm,
      largeBody: true,
      async handler({ webSession, form }) {
        return judgeTestsOfForm(webSession, null, form);
      },
    },
  ),
  signedInForm(
    'consoleCreateChallengeForm',
    '/admin/challenges',
    'Console form: create a draft challenge (audited)',
    {
      body: anyForm,
      largeBody: true,
      async handler({ deps, principal, webSession, form }) {
        const typed = withTypedTests(form);
        if (!typed.ok) return typed.page(webSession, null);
        const { values, tests, moved } = typed;
        const { input, errors } = challengeInput(values);
        const parsed = createChallengeBody.safeParse(input);
        if (!parsed.success) issuesToErrors(parsed.error.issues, errors);
        if (hasErrors(errors) || !parsed.success)
          return formPage(webSession, null, values, errors, { status: 400, tests, notice: moved });
        const row = await orFieldErrors(
          () => createChallenge(deps.db, actorOf(principal).userId, parsed.data),
          errors,
        );
        if (!row) return formPage(webSession, null, values, errors, { status: 400, tests, notice: moved });
        return { redirect: `/admin/challenges/${row.id}?done=created`, status: 303 };
      },
    },
  ),
  signedInForm(
    'consoleDryRunNewForm',
    '/admin/challenges/new/dry-run',
    'Console form: dry-run a sample with the judge config of the new draft being typed (records nothing)',
    {
      body: anyForm,
      largeBody: true,
      rateLimit: 'submissions',
      async handler({ deps, webSession, form }) {
        return dryRunOfForm(deps, webSession, null, form);
      },
    },
  ),
  signedInPage(
    'consoleChallenge',
    '/admin/challenges/:id',
    'Console: a challenge, its lifecycle and its form',
    {
      params: uuidParam,
      query: doneQuery,
      async handler({ params, query, deps, webSession }) {
        const row = await requireConsoleChallenge(deps, params.id);
        return formPage(
          webSession,
          row,
          { ...formValuesOf(row), sample: '' },
          {},
          {
            notice: noticeOf(query.done),
          },
        );
      },
    },
  ),
  signedInForm(
    'consoleEditChallengeForm',
    '/admin/challenges/:id',
    'Console form: save the changed fields (audited)',
    {
      params: uuidParam,
      body: anyForm,
      largeBody: true,
      async handler({ params, deps, principal, webSession, form }) {
        const row = await requireConsoleChallenge(deps, params.id);
        const typed = withTypedTests(form);
        if (!typed.ok) return typed.page(webSession, row);
        const { values, tests, moved } = typed;
        const { input, errors } = challengeInput(values);
        if (hasErrors(errors))
          return formPage(webSession, row, values, errors, { status: 400, tests, notice: moved });
        const changed = changedFields(input, row);
        if (Object.keys(changed).length === 0)
          return formPage(
            webSession,
            row,
            values,
            {},
            { notice: 'Nothing to save: every field is as stored.' },
          );
        const parsed = patchChallengeBody.safeParse(changed);
        if (!parsed.success) {
          issuesToErrors(parsed.error.issues, errors);
          return formPage(webSession, row, values, errors, { status: 400, tests, notice: moved });
        }
        // The version the form was read at (always sent by this form): a save made from an older
        // one is refused and shows theirs beside yours (DESIGN "Operators": the console sends If-Match).
        let version = /^\d{1,9}$/.test(values.version) ? Number(values.version) : null;
        // Moved only by writes outside the form (the lifecycle records the start it announced
        // seconds after publishing): every field is as the form showed it, so the save applies to
        // the version stored now. A field someone else changed still makes it a conflict.
        if (
          version !== null &&
          version !== row.version &&
          values.base &&
          values.base === formValuesOf(row).base
        )
          version = row.version;
        let updated: ChallengeRow | undefined;
        try {
          updated = await orFieldErrors(
            () =>
              editChallenge(
                deps,
                actorOf(principal),
                row.id,
                parsed.data,
                version === null ? null : [version],
              ),
            errors,
          );
        } catch (err) {
          if (!(err instanceof ServiceError) || err.code !== 'PRECONDITION_FAILED' || version === null)
            throw err;
          const current = (await challengeStoreOf(deps).findChallengeById(row.id)) ?? row;
          return formPage(
            webSession,
            current,
            { ...values, version: String(current.version), base: formValuesOf(current).base ?? '' },
            {},
            { status: 409, conflict: editConflict(version, input, current) },
          );
        }
        if (!updated) return formPage(webSession, row, values, errors, { status: 400, tests, notice: moved });
        return { redirect: `/admin/challenges/${row.id}?done=saved`, status: 303 };
      },
    },
  ),
  signedInForm(
    'consoleDryRunForm',
    '/admin/challenges/:id/dry-run',
    'Console form: dry-run a sample with the judge config being edited (records nothing)',
    {
      params: uuidParam,
      body: anyForm,
      largeBody: true,
      rateLimit: 'submissions',
      async handler({ params, deps, webSession, form }) {
        const row = await requireConsoleChallenge(deps, params.id);
        return dryRunOfForm(deps, webSession, row, form);
      },
    },
  ),
  signedInForm(
    'consoleJudgeTemplateForm',
    '/admin/challenges/:id/judge-template',
    "Console form: the challenge's form as typed, its judge box replaced by the chosen kind's template (saves nothing)",
    {
      params: uuidParam,
      body: anyForm,
      largeBody: true,
      async handler({ params, deps, webSession, form }) {
        const row = await requireConsoleChallenge(deps, params.id);
        return judgeTemplateOfForm(webSession, row, form);
      },
    },
  ),
  signedInForm(
    'consoleJudgeTestsForm',
    '/admin/challenges/:id/judge-tests',
    "Console form: the challenge's form as typed with one more test row, or its test rows or tests file added to the judge box (saves nothing)",
    {
      params: uuidParam,
      body: anyForm,
      largeBody: true,
      async handler({ params, deps, webSession, form }) {
        const row = await requireConsoleChallenge(deps, params.id);
        return judgeTestsOfForm(webSession, row, form);
      },
    },
  ),
  ...transitionRoutes('publish'),
  ...transitionRoutes('quarantine'),
  ...transitionRoutes('retire'),
  signedInPage(
    'consoleConfirmChallengeRejudge',
    '/admin/challenges/:id/rejudge',
    'Console: confirm the rejudge of every submission of a challenge',
    {
      params: uuidParam,
      async handler({ params, deps, webSession }) {
        const row = await requireConsoleChallenge(deps, params.id);
        return rejudgeConfirmPage(deps, webSession, row);
      },
    },
  ),
  signedInForm(
    'consoleChallengeRejudgeForm',
    '/admin/challenges/:id/rejudge',
    'Console form: rejudge every submission of a challenge in the ticked statuses (confirmed; audited)',
    {
      params: uuidParam,
      body: confirmedForm,
      async handler({ params, deps, principal, webSession, form }) {
        const row = await requireConsoleChallenge(deps, params.id);
        const ticked = (form?.fields.status ?? []).filter((s): s is (typeof BULK_REJUDGE_STATUSES)[number] =>
          (BULK_REJUDGE_STATUSES as readonly string[]).includes(s),
        );
        if (ticked.length === 0)
          return rejudgeConfirmPage(deps, webSession, row, 'Tick at least one status.', 400);
        try {
          const started = await rejudgeChallenge(deps, actorOf(principal), row.id, ticked);
          return { redirect: `/admin/rejudges/${started.rejudge_id}`, status: 303 };
        } catch (err) {
          if (err instanceof ServiceError && err.code === 'CONFLICT')
            return rejudgeConfirmPage(deps, webSession, row, undefined, 409);
          throw err;
        }
      },
    },
  ),
  signedInPage(
    'consoleRejudge',
    '/admin/rejudges/:id',
    "Console: a challenge rejudge's progress, each submission's old → new score",
    {
      params: uuidParam,
      async handler({ params, deps, webSession }) {
        const progress = await rejudgeProgress(deps, params.id);
        const challenge = await challengeStoreOf(deps).findChallengeById(progress.challenge_id);
        return htmlPage(
          renderRejudgeProgressPage({
            challenge: { id: progress.challenge_id, title: challenge?.title ?? 'challenge' },
            rejudge: {
              id: progress.id,
              status: progress.status,
              count: progress.count,
              done: progress.done,
              statuses: progress.statuses,
              requestedAt: progress.requested_at,
              finishedAt: progress.finished_at,
              items: progress.items.map((item) => ({
                submissionId: item.submission_id,
                agentName: item.agent_name,
                oldScore: item.old_score,
                newScore: item.new_score,
                oldPrivate: item.old_private_score,
                newPrivate: item.new_private_score,
                done: item.done,
              })),
            },
            account: account(webSession),
          }),
        );
      },
    },
  ),
];

async function rejudgeConfirmPage(
  deps: AppDeps,
  session: WebSession,
  row: ChallengeRow,
  error?: string,
  status = 200,
) {
  const [counts, runningId] = await Promise.all([
    countSubmissionsByStatus(deps.db, row.id),
    runningRejudgeOf(deps, row.id),
  ]);
  return htmlPage(
    renderRejudgeConfirmPage({
      challenge: { id: row.id, title: row.title },
      counts: { complete: counts.complete ?? 0, failed: counts.failed ?? 0 },
      runningId,
      error,
      csrfToken: session.csrfToken,
      account: account(session),
    }),
    status,
  );
}
