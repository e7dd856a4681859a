import type Koa from 'koa';
import { z } from 'zod';
import { SCOPES, scopeSchema } from '../../../auth/scopes';
import type { Principal } from '../../../auth/principal';
import { listAgentKeys } from '../../../db/queries/agent-keys';
import { listAgentsByOwner } from '../../../db/queries/agents';
import { listUnrevokedApiTokens } from '../../../db/queries/api-tokens';
import { findChallengeById } from '../../../db/queries/challenges';
import { listEntries } from '../../../db/queries/entries';
import { findCurrentResultForSubmission, listCurrentOutcomes } from '../../../db/queries/results';
import { findSubmissionSummary, listSelectedIds } from '../../../db/queries/submissions';
import type { WebSession } from '../../../domain/accounts/web-sessions';
import { enterChallenge } from '../../../domain/challenges/entries';
import { requireVisibleChallenge } from '../../../domain/challenges/lifecycle';
import { takePartClosedReason } from '../../../domain/challenges/rules';
import { offersFinalSelection } from '../../../domain/contests/rules';
import { saveSelection } from '../../../domain/contests/selection';
import {
  createAgent,
  createApiToken,
  deleteOwnAgent,
  editAgentProfile,
  issueAgentKey,
  requireOwnedAgent,
  revokeOwnAgentKey,
  revokeOwnApiToken,
} from '../../../domain/identity';
import { openSession } from '../../../domain/sessions';
import { submissionsLeftForOwner } from '../../../domain/submissions/allowance';
import { getSubmissionHistory } from '../../../domain/submissions/history';
import { createSubmission, loadSubmissionFor } from '../../../domain/submissions/intake';
import { submissionsLeftFor } from '../../../domain/submissions/allowance';
import { ServiceError, validationError } from '../../../errors';
import { verdictView, verdictWord } from '../../../lib/verdict-rows';
import { breakdownView, judgePublicView } from '../../../judging';
import { showsPrivateTests } from '../../../domain/contests/policy';
import { headerAccount } from '../../../web/layout';
import {
  renderAgentsPage,
  renderHistoryPage,
  renderSubmissionPage,
  renderTakePartPage,
  renderTokensPage,
  type RestoredForm,
  type SelectionGroup,
} from './view';
import type { ShownOnce } from '../../../web/forms';
import type { AppDeps } from '../../deps';
import { describeZodIssues } from '../../errors';
import { FORM_BODY_LIMIT_BYTES, formValue, type ParsedForm } from '../../form-body';
import { htmlPage } from '../../html-page';
import { type AnyRouteDef } from '../../route';
import { signedInForm, signedInPage } from '../../page-routes';
import { safeText } from '../../schemas/common';
import { agentNameSchema } from '../../schemas/identity';
import { createSubmissionBody } from '../../schemas/submissions';

export async function agentsPage(
  deps: AppDeps,
  session: WebSession,
  shown?: ShownOnce,
  restored?: RestoredForm,
) {
  const agents = await listAgentsByOwner(deps.db, session.userId);
  const withKeys = await Promise.all(
    agents.map(async (agent) => ({ agent, keys: await listAgentKeys(deps.db, agent.id) })),
  );
  return htmlPage(
    renderAgentsPage({
      agents: withKeys,
      csrfToken: session.csrfToken,
      account: headerAccount(session),
      shown,
      restored,
    }),
  );
}

export async function takePartPage(
  deps: AppDeps,
  principal: Principal,
  session: WebSession,
  challengeId: string,
  restored?: RestoredForm,
) {
  const challenge = await requireVisibleChallenge(deps.db, principal, challengeId);
  const [agents, entries, left] = await Promise.all([
    listAgentsByOwner(deps.db, session.userId),
    listEntries(
      deps.db,
      { challengeId: challenge.id, ownerUserId: session.userId },
      { limit: 1000, offset: 0 },
    ),
    submissionsLeftForOwner(deps.db, session.userId, challenge.id),
  ]);
  return htmlPage(
    renderTakePartPage({
      challenge,
      agents,
      enteredAgentIds: new Set(entries.rows.map((e) => e.agent_id)),
      judge: judgePublicView(challenge.judge),
      fileSlots: SUBMIT_FILE_SLOTS,
      sizeLimitBytes: FORM_BODY_LIMIT_BYTES,
      submissionsLeft: new Map(left.map((a) => [a.id, a.left])),
      csrfToken: session.csrfToken,
      account: headerAccount(session),
      closed: takePartClosedReason(challenge),
      restored,
    }),
  );
}

/** Pages of a person signed in on the web, under /me (docs/decisions/web.md); hidden from OpenAPI. */
export const accountPageRoutes = [
  signedInPage('myAgentsPage', '/me/agents', 'Web page: my agents, their connector keys', {
    query: z.object({}).passthrough(),
    async handler({ deps, webSession }) {
      return agentsPage(deps, webSession);
    },
  }),
];

/** A form's id field (a uuid), for the form schemas below. */
const formUuid = z.string().uuid();
/** A checkbox group: one value is a string, several an array. */
const formList = <T extends z.ZodTypeAny>(item: T) =>
  z.preprocess((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]), z.array(item));
const csrfOnly = z.object({ _csrf: z.string() }).passthrough();
const agentIdParams = z.object({ id: formUuid });
const agentKeyParams = z.object({ id: formUuid, keyId: formUuid });

/** File slots on the browser's submit form (each: a file and its path in the competitor's tree). */
export const SUBMIT_FILE_SLOTS = 3;

const form = <S extends z.ZodRawShape>(shape: S) =>
  z.object({ _csrf: z.string(), _files: z.unknown(), ...shape });

async function tokensPage(deps: AppDeps, session: WebSession, shown?: ShownOnce) {
  const [tokens, agents] = await Promise.all([
    listUnrevokedApiTokens(deps.db, session.userId),
    listAgentsByOwner(deps.db, session.userId),
  ]);
  return htmlPage(
    renderTokensPage({
      tokens,
      agents,
      scopes: SCOPES,
      csrfToken: session.csrfToken,
      account: headerAccount(session),
      shown,
    }),
  );
}

const historyQuery = z.object({
  status: z.enum(['received', 'queued', 'judging', 'complete', 'failed']).optional().catch(undefined),
  challenge_id: z.string().uuid().optional().catch(undefined),
  cursor: z.string().max(200).optional().catch(undefined),
  saved: z.string().max(10).optional().catch(undefined),
});

export const accountFormRoutes: AnyRouteDef[] = [
  signedInForm('createAgentForm', '/me/agents', 'Web form: create an agent', {
    body: form({ name: agentNameSchema, model_name: safeText(100).optional() }),
    async handler({ body, principal, deps }) {
      await createAgent(deps.db, principal, body.name, body.model_name || null);
      return { redirect: '/me/agents', status: 303 };
    },
  }),
  signedInForm('renameAgentForm', '/me/agents/:id', 'Web form: rename one of my agents', {
    params: agentIdParams,
    body: form({ name: agentNameSchema }),
    async handler({ params, body, principal, deps }) {
      await editAgentProfile(deps.db, principal, params.id, { name: body.name });
      return { redirect: '/me/agents', status: 303 };
    },
  }),
  signedInForm('deleteAgentForm', '/me/agents/:id/delete', 'Web form: delete one of my agents', {
    params: agentIdParams,
    body: csrfOnly,
    async handler({ params, principal, deps }) {
      await deleteOwnAgent(deps.db, principal, params.id);
      deps.credentialCache.invalidate('*');
      return { redirect: '/me/agents', status: 303 };
    },
  }),
  signedInForm('createAgentKeyForm', '/me/agents/:id/keys', 'Web form: a new connector key (shown once)', {
    params: agentIdParams,
    body: form({ expires_in_hours: z.coerce.number().int().min(1).max(8760) }),
    async handler({ params, body, principal, deps, webSession, ctx }) {
      const agent = await requireOwnedAgent(deps.db, principal, params.id);
      const { key, row } = await issueAgentKey(deps.db, agent.id, body.expires_in_hours);
      return agentsPage(deps, webSession, {
        what: `Connector key for ${agent.name}`,
        secret: key,
        expiresAt: row.expires_at,
        // The command as it runs from a clone of this service (the connector reads the same
        // variable names as the participant CLI): this instance's address, the key, `run`.
        command: `CCS_BASE_URL=${deps.config.PUBLIC_BASE_URL ?? ctx.origin} CCS_AGENT_KEY=${key} npm run -s connector -- run`,
        note: 'Start your connector with the command below, from a clone of this service: it sends a heartbeat, polls the challenges this agent is entered in, and says why when there is nothing to do.',
      });
    },
  }),
  signedInForm(
    'revokeAgentKeyForm',
    '/me/agents/:id/keys/:keyId/revoke',
    'Web form: revoke a connector key',
    {
      params: agentKeyParams,
      body: csrfOnly,
      async handler({ params, principal, deps }) {
        await revokeOwnAgentKey(deps.db, principal, params.id, params.keyId);
        return { redirect: '/me/agents', status: 303 };
      },
    },
  ),
  signedInPage('myTokensPage', '/me/tokens', 'Web page: my API tokens', {
    async handler({ deps, webSession }) {
      return tokensPage(deps, webSession);
    },
  }),
  signedInForm('createTokenForm', '/me/tokens', 'Web form: a new API token (shown once)', {
    body: form({
      name: safeText(100, 1),
      agent_id: formUuid,
      scopes: formList(scopeSchema).pipe(z.array(scopeSchema).min(1, 'pick at least one scope')),
      expires_in_days: z.preprocess(
        (v) => (v === '' ? undefined : v),
        z.coerce.number().int().min(1).max(3650).optional(),
      ),
    }),
    async handler({ body, deps, webSession }) {
      const session = webSession;
      const { row, token } = await createApiToken(
        deps.db,
        { userId: session.userId, name: session.name },
        {
          name: body.name,
          scopes: body.scopes,
          expiresInDays: body.expires_in_days ?? null,
          agentId: body.agent_id,
          sandbox: false,
        },
      );
      return tokensPage(deps, session, {
        what: `API token "${row.name}"`,
        secret: token,
        note: 'Use it as Authorization: Bearer <token>, or with the CLI as --token / CCS_TOKEN.',
      });
    },
  }),
  signedInForm('revokeTokenForm', '/me/tokens/:id/revoke', 'Web form: revoke an API token', {
    params: agentIdParams,
    body: csrfOnly,
    async handler({ params, principal, deps }) {
      await revokeOwnApiToken(deps.db, principal, params.id);
      return { redirect: '/me/tokens', status: 303 };
    },
  }),
  signedInPage(
    'takePartPage',
    '/me/challenges/:id',
    'Web page: enter a challenge and submit from the browser',
    {
      params: agentIdParams,
      async handler({ params, principal, deps, webSession }) {
        return takePartPage(deps, principal, webSession, params.id);
      },
    },
  ),
  signedInForm(
    'enterChallengeForm',
    '/challenges/:id/enter',
    'Web form: enter one of my agents in this challenge',
    {
      params: agentIdParams,
      body: form({ agent_id: formUuid }),
      async handler({ params, body, principal, deps }) {
        await enterChallenge(deps.db, principal, params.id, body.agent_id);
        return { redirect: `/me/challenges/${params.id}`, status: 303 };
      },
    },
  ),
  signedInForm(
    'submitForm',
    '/me/challenges/:id/submissions',
    'Web form: submit (text and files) as one of my entered agents',
    {
      rateLimit: 'submissions',
      params: agentIdParams,
      body: form({
        agent_id: formUuid,
        language: z.string().max(50).optional(),
        content: z.string().optional(),
        paste_path: z.string().max(300).optional(),
      }),
      async handler({ params, body, principal, deps, form: posted }) {
        const challenge = await requireVisibleChallenge(deps.db, principal, params.id);
        const typed = browserSubmissionWithLabels(judgePublicView(challenge.judge), body, posted);
        const submissionBody = createSubmissionBody.safeParse(typed.body);
        if (!submissionBody.success)
          throw validationError(describeFormIssues(submissionBody.error.issues, typed.labels));
        const { session } = await openSession(deps.db, principal, params.id, body.agent_id);
        const { submission } = await createSubmission(deps, principal, session.id, submissionBody.data, null);
        return { redirect: `/me/submissions/${submission.id}`, status: 303 };
      },
    },
  ),
  signedInPage(
    'mySubmissionPage',
    '/me/submissions/:id',
    "Web page: a submission's status (live), result and breakdown",
    {
      params: agentIdParams,
      async handler({ params, principal, deps, webSession }) {
        const submission = await loadSubmissionFor(deps.db, principal, params.id);
        const [result, challenge] = await Promise.all([
          findCurrentResultForSubmission(deps.db, submission.id),
          findChallengeById(deps.db, submission.challenge_id),
        ]);
        // What the agent has left here (Kaggle's "N submissions remaining"), while it may submit.
        const left =
          challenge?.status === 'active' && !submission.sandbox
            ? await submissionsLeftFor(deps.db, submission.agent_id, submission.challenge_id)
            : null;
        return htmlPage(
          renderSubmissionPage({
            submission,
            challengeTitle: challenge?.title ?? 'challenge',
            result,
            breakdown: result
              ? breakdownView(result.breakdown, 'competitor', {
                  revealPrivate: showsPrivateTests(principal, challenge?.status ?? 'active'),
                })
              : null,
            judgePublic: challenge ? judgePublicView(challenge.judge) : undefined,
            account: headerAccount(webSession),
            left,
            selection:
              challenge && offersFinalSelection(challenge, submission)
                ? { selected: submission.selected_at !== null, csrfToken: webSession.csrfToken }
                : null,
          }),
        );
      },
    },
  ),
  signedInPage(
    'mySubmissionEvents',
    '/me/submissions/:id/events',
    "Web: a submission's status pushed as Server-Sent Events until it is judged",
    {
      params: agentIdParams,
      responses: {
        200: { description: 'text/event-stream of `status` events', contentType: 'text/event-stream' },
      },
      async handler({ params, principal, deps, ctx }) {
        const submission = await loadSubmissionFor(deps.db, principal, params.id);
        streamSubmissionStatus(ctx, deps, submission.id);
        return { streamed: true };
      },
    },
  ),
  signedInPage('mySubmissionsPage', '/me', 'Web page: my submissions, newest first, filterable', {
    whenSignedOut: '/login?return_to=%2Fme',
    query: historyQuery,
    async handler({ query, principal, deps, webSession }) {
      return htmlPage(
        await historyPage(deps, principal, webSession, query, null, query.saved ? 'Selection saved.' : null),
      );
    },
  }),
  signedInForm(
    'finalSelectionForm',
    '/me/final-selection',
    "Web form: one agent's selection for a challenge's final board, by checkbox on the history page",
    {
      body: z.object({
        _csrf: z.string(),
        challenge_id: formUuid,
        agent_id: formUuid,
        shown: formList(formUuid).pipe(z.array(formUuid).max(100)),
        selected: formList(formUuid).pipe(z.array(formUuid).max(100)),
      }),
      async handler({ body, principal, deps, webSession }) {
        const change = {
          challengeId: body.challenge_id,
          agentId: body.agent_id,
          shown: body.shown,
          chosen: body.selected.filter((id) => body.shown.includes(id)),
        };
        try {
          await saveSelection(deps.db, principal, change);
        } catch (err) {
          // Too many ticked (or closed meanwhile): the page again, the boxes as ticked, the reason beside them.
          if (!(err instanceof ServiceError) || (err.code !== 'VALIDATION_ERROR' && err.code !== 'CONFLICT'))
            throw err;
          const message = err.fields?.selected ?? err.message;
          const page = await historyPage(
            deps,
            principal,
            webSession,
            { challenge_id: body.challenge_id },
            {
              ...change,
              error: message,
            },
          );
          return htmlPage(page, err.code === 'CONFLICT' ? 409 : 400);
        }
        return { redirect: `/me?challenge_id=${body.challenge_id}&saved=1`, status: 303 };
      },
    },
  ),
];

/** What a refused selection form posted, re-shown on the page with its reason. */
export interface PostedSelection {
  challengeId: string;
  agentId: string;
  chosen: readonly string[];
  error: string;
}

/**
 * The history page: each row's verdict (DOMjudge's word, from the breakdown its owner is served,
 * private tests left out), and the final-board checkboxes with a counter per (challenge, agent)
 * where the pages offer selection (offersFinalSelection: active, not practice, live rows).
 */
export async function historyPage(
  deps: AppDeps,
  principal: Principal,
  webSession: WebSession,
  query: z.infer<typeof historyQuery>,
  posted: PostedSelection | null,
  notice: string | null = null,
) {
  const { rows, pagination } = await getSubmissionHistory(deps.db, principal, { ...query, limit: 50 });
  const challengeIds = new Map<string, string>();
  for (const r of rows) challengeIds.set(r.challenge_id, r.challenge_title);
  const [outcomes, challenges] = await Promise.all([
    listCurrentOutcomes(
      deps.db,
      rows.filter((r) => r.result_id !== null).map((r) => r.id),
    ),
    Promise.all([...challengeIds.keys()].map((id) => findChallengeById(deps.db, id))),
  ]);
  const challengeOf = new Map(challenges.flatMap((c) => (c ? [[c.id, c] as const] : [])));
  const groups = new Map<string, SelectionGroup>();
  for (const r of rows) {
    const challenge = challengeOf.get(r.challenge_id);
    if (!challenge || !offersFinalSelection(challenge, r)) continue;
    const key = `${r.challenge_id}_${r.agent_id}`;
    const group = groups.get(key) ?? {
      challenge_id: r.challenge_id,
      challenge_title: r.challenge_title,
      agent_id: r.agent_id,
      agent_name: r.agent_name,
      keptElsewhere: 0,
      limit: challenge.final_submissions,
      shownIds: [],
      ticked: new Set<string>(),
    };
    group.shownIds.push(r.id);
    if (r.selected_at !== null) (group.ticked as Set<string>).add(r.id);
    groups.set(key, group);
  }
  await Promise.all(
    [...groups.values()].map(async (g) => {
      const all = await listSelectedIds(deps.db, g.challenge_id, g.agent_id);
      g.keptElsewhere = all.filter((id) => !g.shownIds.includes(id)).length;
      if (posted && posted.challengeId === g.challenge_id && posted.agentId === g.agent_id) {
        g.ticked = new Set(posted.chosen);
        g.error = posted.error;
      }
    }),
  );
  const verdictOf = (id: string, r: (typeof rows)[number]) => {
    const outcome = outcomes.get(id);
    if (!outcome || r.result_state === null) return null;
    const view = verdictView(breakdownView(outcome, 'competitor', { revealPrivate: false }));
    return verdictWord(view, { result_state: r.result_state, summary: outcome.summary });
  };
  return renderHistoryPage({
    rows: rows.map((r) => ({
      id: r.id,
      challenge_id: r.challenge_id,
      challenge_title: r.challenge_title,
      agent_id: r.agent_id,
      agent_name: r.agent_name,
      status: r.status,
      final_score: r.final_score === null ? null : Number(r.final_score),
      created_at: r.created_at,
      language: r.language,
      result_state: r.result_state,
      verdict: verdictOf(r.id, r),
      selected: r.selected_at !== null,
    })),
    filters: query,
    challenges: [...challengeIds].map(([id, title]) => ({ id, title })),
    nextCursor: pagination.next_cursor ?? null,
    account: headerAccount(webSession),
    selection: [...groups.values()],
    csrfToken: webSession.csrfToken,
    notice: posted ? null : notice,
  });
}

/**
 * The browser form as the API's submission body (one model for browser, CLI and API): the
 * language menu's choice ('' = detect from the file names), the pasted text (a file at
 * `paste_path` when one is named, else `content`) and each uploaded file under the path typed
 * beside it (its own name when none is typed).
 */
export function browserSubmission(
  judge: { languages: string[] | null; entry?: string | null },
  body: { language?: string; content?: string; paste_path?: string },
  posted: ParsedForm | null,
): { content: string; files?: { path: string; content: string }[]; language?: string } {
  return browserSubmissionWithLabels(judge, body, posted).body;
}

/** The form's label of each file of the body, by index (what an error about `files.N` names). */
export type FileLabels = string[];

/** As browserSubmission, with the label the form shows for each file (the paste box, "Path of file N"). */
export function browserSubmissionWithLabels(
  judge: { languages: string[] | null; entry?: string | null },
  body: { language?: string; content?: string; paste_path?: string },
  posted: ParsedForm | null,
): {
  body: { content: string; files?: { path: string; content: string }[]; language?: string };
  labels: FileLabels;
} {
  const language = (body.language ?? '').trim();
  if (language !== '' && judge.languages !== null && !judge.languages.includes(language))
    throw validationError(
      `language ${language} is not offered here (allowed: ${judge.languages.join(', ')})`,
    );
  const files: { path: string; content: string }[] = [];
  const labels: FileLabels = [];
  const entry = judge.entry ?? null;
  for (let slot = 1; slot <= SUBMIT_FILE_SLOTS; slot++) {
    const upload = posted?.files[`file_${slot}`]?.[0];
    const typed = (posted ? formValue(posted, `path_${slot}`) : undefined)?.trim() ?? '';
    if (upload === undefined) {
      if (typed !== '') throw validationError(`Path of file ${slot}: ${typed}, but no file was chosen`);
      continue;
    }
    // A browser sends only the file's name: the challenge's entry (src/solution.ts) keeps its folder.
    const named = entry !== null && entry.endsWith(`/${upload.filename}`) ? entry : upload.filename;
    files.push({ path: typed || named, content: upload.content });
    labels.push(`Path of file ${slot}`);
  }
  const pasted = body.content ?? '';
  const pastePath = (body.paste_path ?? '').trim();
  let content = pasted;
  let chosen = language;
  if (judge.languages !== null && pastePath !== '' && pasted.trim() !== '') {
    files.unshift({ path: pastePath, content: pasted });
    labels.unshift('Save the pasted code as');
    content = '';
  } else if (judge.languages !== null && files.length > 0 && pasted.trim() !== '')
    // With files the judge reads only the files: pasted code without a path would vanish unsaid.
    throw validationError(
      'you pasted code and uploaded files: give the pasted code its path in your project under "Save the pasted code as" (main.py, for instance), or upload it as a file',
    );
  else if (judge.languages !== null && language === '' && pasted.trim() !== '') {
    // "Detect from the file name" with pasted code: its name, the one language offered, or say so.
    if (judge.languages.length === 1) chosen = judge.languages[0]!;
    else
      throw validationError(
        'Language: "detect from the file name" needs a file name: choose the language of the pasted code, or name its file under "Save the pasted code as" (main.py, for instance)',
      );
  }
  return {
    body: {
      content,
      ...(files.length ? { files } : {}),
      ...(chosen !== '' && judge.languages !== null ? { language: chosen } : {}),
    },
    labels,
  };
}

/**
 * The API schema's issues in the form's words: `files.0.path` is the label the form shows for that
 * file ("Path of file 1", "Save the pasted code as"), never the body's field name.
 */
export function describeFormIssues(
  issues: { path: (string | number)[]; message: string }[],
  labels: FileLabels,
): string {
  return issues
    .slice(0, 10)
    .map((i) => {
      const [head, index, field] = i.path;
      if (head === 'files' && typeof index === 'number') {
        const label = labels[index] ?? `File ${index + 1}`;
        return field === 'path' || field === undefined
          ? `${label}: ${i.message}`
          : `${label.replace(/^Path of file/, 'File')} (${String(field)}): ${i.message}`;
      }
      if (head === 'files') return `Files: ${i.message}`;
      if (head === 'content') return `Code or answer: ${i.message}`;
      if (head === 'language') return `Language: ${i.message}`;
      return describeZodIssues([i]);
    })
    .join('; ');
}

/** Polls the submission's status (one light read every 500 ms) and pushes each change; ends once judged. */
function streamSubmissionStatus(ctx: Koa.Context, deps: AppDeps, submissionId: string): void {
  ctx.respond = false;
  const res = ctx.res;
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'X-Request-ID': String(ctx.state.requestId),
    'X-API-Version': '1',
  });
  let last = '';
  let closed = false;
  const deadline = Date.now() + 15 * 60_000;
  ctx.req.on('close', () => {
    closed = true;
  });
  const tick = async () => {
    if (closed) return;
    try {
      const row = await findSubmissionSummary(deps.db, submissionId);
      if (row && row.status !== last) {
        last = row.status;
        res.write(`event: status\ndata: ${JSON.stringify({ status: row.status })}\n\n`);
      }
      if (!row || row.status === 'complete' || row.status === 'failed' || Date.now() > deadline) {
        res.end();
        return;
      }
    } catch (err) {
      deps.logger.warn({ err }, 'submission status stream: read failed');
    }
    setTimeout(() => void tick(), 500);
  };
  void tick();
}
