import { findCurrentResultForSubmission } from '../../db/queries/results';
import { findSubmissionSummary, listSubmissionEvents } from '../../db/queries/submissions';
import { breakdownView } from '../../judging';
import { breakdownAudience } from '../../domain/submissions/policy';
import { findChallengeStatus } from '../../db/queries/leaderboard';
import { showsPrivateScore, showsPrivateTests } from '../../domain/contests/policy';
import { createSubmission, loadSubmissionFor } from '../../domain/submissions/intake';
import { ApiError } from '../errors';
import { notFound } from '../../errors';
import { defineRoute, uuidParam } from '../route';
import { envelope, pagedEnvelope } from '../schemas/common';
import { getSubmissionHistory } from '../../domain/submissions/history';
import { breakdownSchema } from '../schemas/results';
import {
  createSubmissionBody,
  submissionDetailSchema,
  submissionHistoryItemSchema,
  submissionHistoryQuery,
  submissionSchema,
  toSubmission,
  toSubmissionDetail,
  toSubmissionHistoryItem,
} from '../schemas/submissions';

export const submissionRoutes = [
  defineRoute({
    operationId: 'listSubmissions',
    method: 'get',
    path: '/api/v1/submissions',
    summary:
      "Submission history, newest first: an API token's agent, or every agent of the session JWT's user (agent_id narrows it). " +
      "Filters challenge_id and status; keyset pages (pass next_cursor as cursor). Another owner's agent is 404.",
    tags: ['submissions'],
    auth: 'bearer',
    scope: 'submission:read',
    rateLimit: 'reads',
    query: submissionHistoryQuery,
    responses: {
      200: { description: 'a page of submissions', schema: pagedEnvelope(submissionHistoryItemSchema) },
    },
    async handler({ query, principal, deps }) {
      const { rows, pagination } = await getSubmissionHistory(deps.db, principal, query);
      return { data: rows.map((row) => toSubmissionHistoryItem(row)), pagination };
    },
  }),
  defineRoute({
    operationId: 'createSubmission',
    method: 'post',
    path: '/api/v1/sessions/:id/submissions',
    summary:
      'Submit content (and optional files) to an open session; judging starts at once. With an Idempotency-Key a repeat returns the same submission (200).',
    tags: ['submissions'],
    auth: 'bearer',
    scope: 'submission:create',
    rateLimit: 'submissions',
    idempotent: true,
    params: uuidParam,
    body: createSubmissionBody,
    responses: {
      201: { description: 'accepted (submission_status received)', schema: envelope(submissionSchema) },
      200: {
        description: 'the existing submission for this Idempotency-Key',
        schema: envelope(submissionSchema),
      },
    },
    async handler({ params, body, principal, deps, idempotencyKey }) {
      const { submission, created } = await createSubmission(
        deps,
        principal,
        params.id,
        body,
        idempotencyKey,
      );
      return { status: created ? 201 : 200, data: toSubmission(submission) };
    },
  }),
  defineRoute({
    operationId: 'getSubmission',
    method: 'get',
    path: '/api/v1/submissions/:id',
    summary: 'A submission with its status transitions (events); the owning agent and operators only',
    tags: ['submissions'],
    auth: 'bearer',
    scope: 'submission:read',
    rateLimit: 'reads',
    params: uuidParam,
    responses: { 200: { description: 'the submission', schema: envelope(submissionDetailSchema) } },
    async handler({ params, principal, deps }) {
      const submission = await loadSubmissionFor(deps.db, principal, params.id);
      const [events, result] = await Promise.all([
        listSubmissionEvents(deps.db, submission.id),
        findCurrentResultForSubmission(deps.db, submission.id),
      ]);
      return { data: toSubmissionDetail(submission, events, result) };
    },
  }),
  defineRoute({
    operationId: 'getSubmissionBreakdown',
    method: 'get',
    path: '/api/v1/submissions/:id/breakdown',
    summary:
      "The judge's breakdown for the caller's audience: the owning agent → competitor view, an operator → admin view, " +
      'any other caller with submission:read → spectator view. 404 BREAKDOWN_NOT_AVAILABLE until judged.',
    tags: ['submissions'],
    auth: 'bearer',
    scope: 'submission:read',
    rateLimit: 'reads',
    params: uuidParam,
    responses: { 200: { description: 'the breakdown', schema: envelope(breakdownSchema) } },
    async handler({ params, principal, deps }) {
      const submission = await findSubmissionSummary(deps.db, params.id);
      if (!submission) throw notFound('submission');
      const audience = breakdownAudience(principal, submission);
      if (!audience) throw notFound('submission');
      const [result, challenge] = await Promise.all([
        findCurrentResultForSubmission(deps.db, submission.id),
        findChallengeStatus(deps.db, submission.challenge_id),
      ]);
      if (!result)
        throw new ApiError(
          'BREAKDOWN_NOT_AVAILABLE',
          `no breakdown yet: the submission is ${submission.status}`,
        );
      // Private tests: operators always; everyone else only once the challenge is complete.
      const status = challenge?.status ?? 'active';
      const view = breakdownView(result.breakdown, audience, {
        revealPrivate: showsPrivateTests(principal, status),
      });
      if (view.audience === 'competitor' && !showsPrivateScore(principal, submission, status))
        delete view.private_score;
      return {
        data: {
          submission_id: submission.id,
          result_id: result.id,
          judge: result.judge,
          judged_at: result.judged_at.toISOString(),
          ...view,
        },
      };
    },
  }),
];
