import { z } from 'zod';
import { rejudgeSubmission } from '../../domain/submissions/rejudge';
import { defineRoute, uuidParam } from '../route';
import { actorOf } from '../../domain/audit/trail';
import { envelope, pagedEnvelope } from '../schemas/common';
import {
  rejudgeResponseSchema,
  submissionHistoryItemSchema,
  submissionHistoryQuery,
  toSubmissionHistoryItem,
} from '../schemas/submissions';
import { listAllSubmissions } from '../../domain/submissions/history';

/** The history's filters plus a score range (the current result's score, bounds included). */
export const adminSubmissionsQuery = submissionHistoryQuery.extend({
  min_score: z.coerce.number().finite().min(0).max(100).optional(),
  max_score: z.coerce.number().finite().min(0).max(100).optional(),
});

export const adminSubmissionRoutes = [
  defineRoute({
    operationId: 'adminListSubmissions',
    method: 'get',
    path: '/api/v1/admin/submissions',
    summary:
      "Operators: every owner's submissions (live and sandbox), newest first, with the history's filters (challenge_id, agent_id, status), a score range (min_score, max_score: the current result's, bounds included) and keyset pages",
    tags: ['admin'],
    auth: 'admin',
    rateLimit: 'default',
    query: adminSubmissionsQuery,
    responses: {
      200: { description: 'a page of submissions', schema: pagedEnvelope(submissionHistoryItemSchema) },
    },
    async handler({ query, deps }) {
      const { rows, pagination } = await listAllSubmissions(deps.db, query);
      return { data: rows.map(toSubmissionHistoryItem), pagination };
    },
  }),
  defineRoute({
    operationId: 'rejudgeSubmission',
    method: 'post',
    path: '/api/v1/admin/submissions/:id/rejudge',
    summary:
      'Operators: judge a complete or failed submission again. The new result supersedes the current one (history kept), the leaderboard follows, result.finalized is emitted again.',
    tags: ['admin'],
    auth: 'admin',
    rateLimit: 'default',
    params: uuidParam,
    responses: { 202: { description: 'rejudge run started', schema: envelope(rejudgeResponseSchema) } },
    async handler({ params, principal, deps }) {
      return { status: 202, data: await rejudgeSubmission(deps, actorOf(principal), params.id) };
    },
  }),
];
