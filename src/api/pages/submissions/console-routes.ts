/**
 * The console's submissions (docs/decisions/operators.md "The console"): a challenge's, every
 * owner's, filterable and cursor-paged; one submission in the admin audience with its workflow;
 * the confirmed rejudge. Operators only, audited, CSRF-checked (console/routes.ts).
 */
import { z } from 'zod';
import { findChallengeById } from '../../../db/queries/challenges';
import { listEntrantAgents } from '../../../db/queries/entries';
import { findAgentById } from '../../../db/queries/agents';
import { findCurrentResultForSubmission } from '../../../db/queries/results';
import { findSubmissionSummary } from '../../../db/queries/submissions';
import { findUserById } from '../../../db/queries/users';
import { actorOf } from '../../../domain/audit/policy';
import { submissionWorkflowId } from '../../../domain/submissions/contract';
import { listAllSubmissions } from '../../../domain/submissions/history';
import { csvLine } from '../../../domain/leaderboard';
import type { SubmissionHistoryRow } from '../../../db/queries/submissions';
import { rejudgeSubmission } from '../../../domain/submissions/rejudge';
import { notFound } from '../../../errors';
import { breakdownView } from '../../../judging';
import type { Config } from '../../../config';
import { htmlPage } from '../../html-page';
import { signedInForm, signedInPage } from '../../page-routes';
import { type AnyRouteDef, uuidParam } from '../../route';
import { submissionStatusSchema } from '../../schemas/submissions';
import {
  account,
  blankIsAbsent,
  confirmedForm,
  doneNotices,
  pageSize,
  requireConsoleChallenge,
} from '../console/routes';
import { renderConfirmPage } from '../console/view';
import { renderAdminSubmissionPage, renderChallengeSubmissionsPage } from './console-view';

const { query: doneQuery, noticeOf } = doneNotices({
  rejudged: 'Rejudge started: a new judge run is queued.',
});

const submissionsQuery = z.object({
  limit: pageSize,
  status: blankIsAbsent(submissionStatusSchema.optional()),
  agent_id: blankIsAbsent(z.string().uuid().optional()),
  min_score: blankIsAbsent(z.coerce.number().finite().min(0).max(100).optional()),
  max_score: blankIsAbsent(z.coerce.number().finite().min(0).max(100).optional()),
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

/** The CSV export holds at most this many rows (the newest first). */
const CSV_MAX_ROWS = 10_000;

const CSV_HEADER = [
  'submitted_at',
  'submission_id',
  'agent_id',
  'agent_name',
  'status',
  'run',
  'sandbox',
  'final_score',
  'private_score',
  'private_state',
] as const;

/** The operators' submissions as CSV: the public score and, beside it, the private one. */
export function submissionsCsv(rows: SubmissionHistoryRow[]): string {
  const lines = rows.map((r) =>
    csvLine([
      r.created_at.toISOString(),
      r.id,
      r.agent_id,
      r.agent_name,
      r.status,
      r.judge_run,
      r.sandbox ? 'yes' : 'no',
      r.final_score === null ? '' : Number(r.final_score),
      r.private_score === null ? '' : Number(r.private_score),
      r.private_state ?? 'none',
    ]),
  );
  return csvLine([...CSV_HEADER]) + lines.join('');
}

// ---- the routes --------------------------------------------------------------------------------

export const consoleSubmissionRoutes: AnyRouteDef[] = [
  signedInPage(
    'consoleChallengeSubmissions',
    '/admin/challenges/:id/submissions',
    "Console: a challenge's submissions, every owner's, filterable, cursor-paged",
    {
      params: uuidParam,
      query: submissionsQuery,
      async handler({ params, query, deps, webSession }) {
        const row = await requireConsoleChallenge(deps, params.id);
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
              privateScore: r.private_score === null ? null : Number(r.private_score),
              privateState: r.private_state ?? 'none',
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
    'consoleChallengeSubmissionsCsv',
    '/admin/challenges/:id/submissions.csv',
    "Console: a challenge's submissions as CSV (the listing's filters; public and private scores), newest first",
    {
      params: uuidParam,
      query: submissionsQuery.omit({ cursor: true, limit: true }),
      // Errors are pages like every console route's (a browser follows the download link).
      responses: {
        200: { description: 'CSV', contentType: 'text/csv' },
        403: { description: 'HTML page', contentType: 'text/html' },
      },
      async handler({ params, query, deps }) {
        const row = await requireConsoleChallenge(deps, params.id);
        const rows: SubmissionHistoryRow[] = [];
        let cursor: string | undefined;
        do {
          const page = await listAllSubmissions(deps.db, {
            ...query,
            challenge_id: row.id,
            limit: 100,
            cursor,
          });
          rows.push(...page.rows);
          cursor = page.pagination.next_cursor ?? undefined;
        } while (cursor && rows.length < CSV_MAX_ROWS);
        return {
          raw: submissionsCsv(rows.slice(0, CSV_MAX_ROWS)),
          contentType: 'text/csv; charset=utf-8',
          headers: { 'Content-Disposition': `attachment; filename="submissions-${row.id}.csv"` },
        };
      },
    },
  ),
  signedInPage(
    'consoleSubmission',
    '/admin/submissions/:id',
    'Console: one submission, its admin breakdown, its workflow, rejudge',
    {
      params: uuidParam,
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
    params: uuidParam,
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
          csrfToken: webSession.csrfToken,
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
      params: uuidParam,
      body: confirmedForm,
      async handler({ params, deps, principal }) {
        await rejudgeSubmission(deps, actorOf(principal), params.id);
        return { redirect: `/admin/submissions/${params.id}?done=rejudged`, status: 303 };
      },
    },
  ),
];
