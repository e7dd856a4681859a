/**
 * The operators' console under /admin (docs/decisions/operators.md "The console"): web-session
 * pages for operators only (`operatorsOnly`: anyone else signed in gets the 403 page; signed out,
 * the sign-in redirect). Every action calls the same domain function as the operators' API, which
 * writes the audit record in the action's transaction; every form is CSRF-checked by the pipeline.
 */
import { z } from 'zod';
import {
  countChallengesByStatus,
  findChallengeById,
  judgeKindsOf,
  type ChallengeRow,
} from '../../db/queries/challenges';
import { CHALLENGE_STATUSES } from '../../db/queries/challenges';
import { AUDIT_ACTIONS } from '../../db/queries/audit-records';
import { listEntrantAgents } from '../../db/queries/entries';
import { findAgentById } from '../../db/queries/agents';
import { findCurrentResultForSubmission } from '../../db/queries/results';
import { findSubmissionSummary } from '../../db/queries/submissions';
import { findUserById } from '../../db/queries/users';
import { actorOf, listAudit } from '../../domain/audit/trail';
import { dryRunJudge } from '../../domain/challenges/dry-run';
import {
  createChallenge,
  editChallenge,
  publishChallenge,
  quarantineChallenge,
  retireChallenge,
} from '../../domain/challenges/lifecycle';
import { submissionWorkflowId } from '../../domain/submissions/contract';
import { listAllSubmissions } from '../../domain/submissions/history';
import { rejudgeSubmission } from '../../domain/submissions/rejudge';
import { ServiceError, notFound } from '../../errors';
import { breakdownView, judgeConfigSchema } from '../../judging';
import type { Config } from '../../config';
import type { ParsedForm } from '../form-body';
import {
  CHALLENGE_FIELDS,
  NEW_CHALLENGE_VALUES,
  formValuesOf,
  renderChallengeFormPage,
  type ChallengeFormValues,
  type DryRunOutcome,
  type FieldErrors,
} from '../../web/admin-challenge-form';
import {
  renderAdminSubmissionPage,
  renderAuditPage,
  renderChallengeListPage,
  renderChallengeSubmissionsPage,
  renderConfirmPage,
  renderConsoleHome,
} from '../../web/admin-pages';
import { headerAccount } from '../../web/layout';
import type { WebSession } from '../../domain/accounts/web-sessions';
import type { AppDeps } from '../deps';
import { htmlPage } from '../html-page';
import { type AnyRouteDef } from '../route';
import { signedInForm, signedInPage } from '../page-routes';
import { createChallengeBody, patchChallengeBody, quarantineBody } from '../schemas/challenges';
import { isoDate, safeText, unstorableString } from '../schemas/common';
import { createSubmissionBody, submissionStatusSchema } from '../schemas/submissions';
import { listForCaller } from './challenges';

const idParams = z.object({ id: z.string().uuid() });
/** The form is read field by field by the handler (so what was typed comes back with its errors). */
const anyForm = z.object({ _csrf: z.string() }).passthrough();
/** A confirmation's form: the confirm button's value must be there (a bare POST does nothing). */
const confirmedForm = z.object({ _csrf: z.string(), confirm: z.literal('yes') }).passthrough();
/** GET filter forms send empty boxes as `name=`: absent. */
const blankIsAbsent = <T extends z.ZodTypeAny>(schema: T) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema);

const account = (session: WebSession | null) => headerAccount(session);

// ---- the challenge form --------------------------------------------------------------------------

const valuesOf = (form: ParsedForm | null): ChallengeFormValues => {
  const out: ChallengeFormValues = {};
  for (const f of [...CHALLENGE_FIELDS.map((x) => x.name), 'sample']) out[f] = form?.fields[f]?.[0] ?? '';
  return out;
};

const addError = (errors: FieldErrors, field: string, message: string) => {
  (errors[field] ??= []).push(message);
};

/** zod issues by field: the first path segment names the field, the rest (judge.criteria.0.weight) stays in the message. */
function issuesToErrors(
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

/** A domain refusal ("body.ends_at: …; body.x: …") next to the fields it names. */
function domainErrorsToFields(message: string, errors: FieldErrors): void {
  for (const part of message.split('; ')) {
    const m = /^(?:body\.)?([a-z_]+)((?:\.[^:]+)?): (.*)$/s.exec(part);
    if (m && CHALLENGE_FIELDS.some((f) => f.name === m[1]))
      addError(errors, m[1], m[2] ? `${m[1]}${m[2]}: ${m[3]}` : m[3]);
    else addError(errors, '', part);
  }
}

/** The typed form as the API's request body; boxes that cannot be read (not a number, not JSON) are errors. */
function challengeInput(values: ChallengeFormValues): {
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
      case 'textarea':
        input[f.name] = raw;
        break;
      case 'checkbox':
        input[f.name] = raw !== '';
        break;
      case 'integer':
      case 'number': {
        if (trimmed === '') {
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

/** A string PostgreSQL cannot store (a NUL or a lone surrogate written as a JSON escape), as a field error. */
function unstorableJson(field: string, value: unknown, errors: FieldErrors): void {
  const problem = unstorableString(value);
  if (problem) addError(errors, field, `${[field, ...problem.path].join('.')}: ${problem.message}`);
}

/** Key order does not matter in a judge config (PostgreSQL's jsonb does not keep it). */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** Only the fields that differ from the stored challenge (the audit record names what was changed). */
function changedFields(input: Record<string, unknown>, row: ChallengeRow): Record<string, unknown> {
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

function formPage(
  session: WebSession,
  challenge: ChallengeRow | null,
  values: ChallengeFormValues,
  errors: FieldErrors = {},
  extra: { notice?: string; dryRun?: DryRunOutcome; status?: number } = {},
) {
  return htmlPage(
    renderChallengeFormPage({
      challenge,
      values,
      errors,
      notice: extra.notice,
      dryRun: extra.dryRun,
      csrfToken: session.csrfToken,
      account: account(session),
    }),
    extra.status ?? 200,
  );
}

const hasErrors = (errors: FieldErrors) => Object.keys(errors).length > 0;

/** Runs a domain action; a VALIDATION_ERROR comes back as field errors instead of an error page. */
async function orFieldErrors<T>(action: () => Promise<T>, errors: FieldErrors): Promise<T | undefined> {
  try {
    return await action();
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'VALIDATION_ERROR') {
      domainErrorsToFields(err.message, errors);
      return undefined;
    }
    throw err;
  }
}

/** The dry run of the form as typed: the judge box and the sample; other fields are not needed. */
async function dryRunOfForm(
  deps: AppDeps,
  session: WebSession,
  challenge: ChallengeRow | null,
  form: ParsedForm | null,
) {
  const values = valuesOf(form);
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
    return formPage(session, challenge, values, errors, { status: 400 });
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
  return formPage(session, challenge, values, {}, { dryRun, status: dryRun.ok ? 200 : 400 });
}

const DONE_NOTICES = {
  created: 'Draft created (recorded in the audit trail).',
  saved: 'Changes saved (recorded in the audit trail).',
  published: 'Published: the challenge is active.',
  'already-active': 'The challenge was already active; its schedule was re-planned.',
  quarantined: 'Quarantined: the challenge is a hidden draft again.',
  retired: 'Retired: the challenge is archived.',
  'already-archived': 'The challenge was already archived.',
  rejudged: 'Rejudge started: a new judge run is queued.',
} as const;
const noticeOf = (done: keyof typeof DONE_NOTICES | undefined) => (done ? DONE_NOTICES[done] : undefined);
const doneQuery = z.object({
  done: z
    .enum(Object.keys(DONE_NOTICES) as [keyof typeof DONE_NOTICES])
    .optional()
    .catch(undefined),
});

async function loadChallenge(deps: AppDeps, id: string): Promise<ChallengeRow | null> {
  return findChallengeById(deps.db, id);
}

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
type Transition = keyof typeof TRANSITIONS;

function confirmTransitionPage(
  session: WebSession,
  row: ChallengeRow,
  action: Transition,
  reason?: { value: string; error?: string },
  status = 200,
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
        params: idParams,
        async handler({ params, deps, webSession }) {
          const row = await loadChallenge(deps, params.id);
          if (!row) throw notFound('Challenge');
          return confirmTransitionPage(webSession!, row, action);
        },
      },
    ),
    signedInForm(
      `console${action[0].toUpperCase()}${action.slice(1)}Form`,
      `/admin/challenges/:id/${action}`,
      `Console form: ${action} a challenge (confirmed; audited)`,
      {
        params: idParams,
        body: confirmedForm,
        async handler({ params, deps, principal, webSession, form }) {
          const actor = actorOf(principal);
          if (action === 'quarantine') {
            const reason = form?.fields.reason?.[0] ?? '';
            const parsed = quarantineBody.safeParse({ reason });
            if (!parsed.success) {
              const row = await loadChallenge(deps, params.id);
              if (!row) throw notFound('Challenge');
              const message = parsed.error.issues.map((i) => i.message).join('; ');
              return confirmTransitionPage(
                webSession!,
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

/** Rows per page (50 unless told; links keep it). */
const pageSize = blankIsAbsent(z.coerce.number().int().min(1).max(100).default(50));

const submissionsQuery = z.object({
  limit: pageSize,
  status: blankIsAbsent(submissionStatusSchema.optional()),
  agent_id: blankIsAbsent(z.string().uuid().optional()),
  min_score: blankIsAbsent(z.coerce.number().finite().min(0).max(100).optional()),
  max_score: blankIsAbsent(z.coerce.number().finite().min(0).max(100).optional()),
  cursor: blankIsAbsent(z.string().max(400).optional()),
});

/** "2025-06-01", "2025-06-01T10:00" (a datetime-local box) are read as UTC; otherwise ISO 8601 with an offset. */
const sinceSchema = z.preprocess((v) => {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(t)) return `${t}T00:00:00Z`;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(t)) return `${t}Z`;
  return t;
}, isoDate);

const auditQuery = z.object({
  limit: pageSize,
  action: blankIsAbsent(z.enum(AUDIT_ACTIONS).optional()),
  actor: blankIsAbsent(safeText(256).optional()),
  since: blankIsAbsent(sinceSchema.optional()),
  cursor: blankIsAbsent(z.string().max(400).optional()),
});

/** The submission's workflow in the Temporal Web UI, or null when no UI is configured. */
export function temporalWorkflowUrl(
  config: Pick<Config, 'TEMPORAL_UI_URL' | 'TEMPORAL_NAMESPACE'>,
  workflowId: string,
): string | null {
  if (!config.TEMPORAL_UI_URL) return null;
  const base = config.TEMPORAL_UI_URL.replace(/\/+$/, '');
  return `${base}/namespaces/${encodeURIComponent(config.TEMPORAL_NAMESPACE)}/workflows/${encodeURIComponent(workflowId)}`;
}

// ---- the routes --------------------------------------------------------------------------------

export const adminPageRoutes: AnyRouteDef[] = [
  signedInPage('consoleHome', '/admin', "Console: the operators' landing page", {
    async handler({ deps, webSession }) {
      return htmlPage(
        renderConsoleHome({ counts: await countChallengesByStatus(deps.db), account: account(webSession) }),
      );
    },
  }),
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
  signedInPage('consoleNewChallenge', '/admin/challenges/new', 'Console: the form of a new draft challenge', {
    async handler({ webSession }) {
      return formPage(webSession!, null, { ...NEW_CHALLENGE_VALUES });
    },
  }),
  signedInForm(
    'consoleCreateChallengeForm',
    '/admin/challenges',
    'Console form: create a draft challenge (audited)',
    {
      body: anyForm,
      largeBody: true,
      async handler({ deps, principal, webSession, form }) {
        const values = valuesOf(form);
        const { input, errors } = challengeInput(values);
        const parsed = createChallengeBody.safeParse(input);
        if (!parsed.success) issuesToErrors(parsed.error.issues, errors);
        if (hasErrors(errors) || !parsed.success)
          return formPage(webSession!, null, values, errors, { status: 400 });
        const row = await orFieldErrors(
          () => createChallenge(deps.db, actorOf(principal).userId, parsed.data),
          errors,
        );
        if (!row) return formPage(webSession!, null, values, errors, { status: 400 });
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
        return dryRunOfForm(deps, webSession!, null, form);
      },
    },
  ),
  signedInPage(
    'consoleChallenge',
    '/admin/challenges/:id',
    'Console: a challenge, its lifecycle and its form',
    {
      params: idParams,
      query: doneQuery,
      async handler({ params, query, deps, webSession }) {
        const row = await loadChallenge(deps, params.id);
        if (!row) throw notFound('Challenge');
        return formPage(
          webSession!,
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
      params: idParams,
      body: anyForm,
      largeBody: true,
      async handler({ params, deps, principal, webSession, form }) {
        const row = await loadChallenge(deps, params.id);
        if (!row) throw notFound('Challenge');
        const values = valuesOf(form);
        const { input, errors } = challengeInput(values);
        if (hasErrors(errors)) return formPage(webSession!, row, values, errors, { status: 400 });
        const changed = changedFields(input, row);
        if (Object.keys(changed).length === 0)
          return formPage(
            webSession!,
            row,
            values,
            {},
            { notice: 'Nothing to save: every field is as stored.' },
          );
        const parsed = patchChallengeBody.safeParse(changed);
        if (!parsed.success) {
          issuesToErrors(parsed.error.issues, errors);
          return formPage(webSession!, row, values, errors, { status: 400 });
        }
        const updated = await orFieldErrors(
          () => editChallenge(deps, actorOf(principal), row.id, parsed.data),
          errors,
        );
        if (!updated) return formPage(webSession!, row, values, errors, { status: 400 });
        return { redirect: `/admin/challenges/${row.id}?done=saved`, status: 303 };
      },
    },
  ),
  signedInForm(
    'consoleDryRunForm',
    '/admin/challenges/:id/dry-run',
    'Console form: dry-run a sample with the judge config being edited (records nothing)',
    {
      params: idParams,
      body: anyForm,
      largeBody: true,
      rateLimit: 'submissions',
      async handler({ params, deps, webSession, form }) {
        const row = await loadChallenge(deps, params.id);
        if (!row) throw notFound('Challenge');
        return dryRunOfForm(deps, webSession!, row, form);
      },
    },
  ),
  ...transitionRoutes('publish'),
  ...transitionRoutes('quarantine'),
  ...transitionRoutes('retire'),
  signedInPage(
    'consoleChallengeSubmissions',
    '/admin/challenges/:id/submissions',
    "Console: a challenge's submissions, every owner's, filterable, cursor-paged",
    {
      params: idParams,
      query: submissionsQuery,
      async handler({ params, query, deps, webSession }) {
        const row = await loadChallenge(deps, params.id);
        if (!row) throw notFound('Challenge');
        const [{ rows, pagination }, agents] = await Promise.all([
          listAllSubmissions(deps.db, { ...query, challenge_id: row.id }),
          listEntrantAgents(deps.db, row.id, 500),
        ]);
        return htmlPage(
          renderChallengeSubmissionsPage({
            challenge: row,
            rows: rows.map((r) => ({
              id: r.id,
              agentId: r.agent_id,
              agentName: r.agent_name,
              status: r.status,
              score: r.final_score === null ? null : Number(r.final_score),
              run: r.judge_run,
              sandbox: r.sandbox,
              createdAt: r.created_at,
            })),
            filters: {
              status: query.status,
              agent_id: query.agent_id,
              min_score: query.min_score,
              max_score: query.max_score,
            },
            statuses: submissionStatusSchema.options,
            agents,
            nextCursor: pagination.next_cursor ?? null,
            limit: query.limit === 50 ? undefined : query.limit,
            account: account(webSession),
          }),
        );
      },
    },
  ),
  signedInPage(
    'consoleSubmission',
    '/admin/submissions/:id',
    'Console: one submission, its admin breakdown, its workflow, rejudge',
    {
      params: idParams,
      query: doneQuery,
      async handler({ params, query, deps, webSession }) {
        const submission = await findSubmissionSummary(deps.db, params.id);
        if (!submission) throw notFound('Submission');
        const [result, challenge, agent, owner] = await Promise.all([
          findCurrentResultForSubmission(deps.db, submission.id),
          findChallengeById(deps.db, submission.challenge_id),
          findAgentById(deps.db, submission.agent_id),
          findUserById(deps.db, submission.owner_user_id),
        ]);
        const workflowId = submissionWorkflowId(submission.id, submission.judge_run);
        return htmlPage(
          renderAdminSubmissionPage({
            submission,
            challengeTitle: challenge?.title ?? 'challenge',
            agentName: agent?.name ?? 'agent',
            ownerSubject: owner?.subject ?? null,
            result,
            breakdown: result ? breakdownView(result.breakdown, 'admin') : null,
            workflowId,
            workflowUrl: temporalWorkflowUrl(deps.config, workflowId),
            canRejudge: submission.status === 'complete' || submission.status === 'failed',
            notice: noticeOf(query.done),
            account: account(webSession),
          }),
        );
      },
    },
  ),
  signedInPage('consoleConfirmRejudge', '/admin/submissions/:id/rejudge', 'Console: confirm a rejudge', {
    params: idParams,
    async handler({ params, deps, webSession }) {
      const submission = await findSubmissionSummary(deps.db, params.id);
      if (!submission) throw notFound('Submission');
      return htmlPage(
        renderConfirmPage({
          title: 'Rejudge this submission?',
          explanation: `A new judge run (run ${submission.judge_run + 1}) judges it again with the challenge's current judge config. Its result supersedes the current one (which stays as history), the leaderboard follows and result.finalized is sent again.`,
          action: `/admin/submissions/${submission.id}/rejudge`,
          confirmLabel: 'Rejudge',
          cancelHref: `/admin/submissions/${submission.id}`,
          csrfToken: webSession!.csrfToken,
          account: account(webSession),
        }),
      );
    },
  }),
  signedInForm(
    'consoleRejudgeForm',
    '/admin/submissions/:id/rejudge',
    'Console form: rejudge (confirmed; audited)',
    {
      params: idParams,
      body: confirmedForm,
      async handler({ params, deps, principal }) {
        await rejudgeSubmission(deps, actorOf(principal), params.id);
        return { redirect: `/admin/submissions/${params.id}?done=rejudged`, status: 303 };
      },
    },
  ),
  signedInPage('consoleAudit', '/admin/audit', 'Console: the audit trail, filterable, cursor-paged', {
    query: auditQuery,
    async handler({ query, deps, webSession }) {
      const { rows, pagination } = await listAudit(deps.db, query);
      return htmlPage(
        renderAuditPage({
          rows,
          actions: AUDIT_ACTIONS,
          filters: { action: query.action, actor: query.actor, since: query.since },
          nextCursor: pagination.next_cursor ?? null,
          limit: query.limit === 50 ? undefined : query.limit,
          account: account(webSession),
        }),
      );
    },
  }),
];
