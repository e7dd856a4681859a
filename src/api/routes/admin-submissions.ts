import { z } from 'zod';
import { rejudgeSubmission } from '../../domain/submissions/rejudge';
import { defineRoute, uuidParam } from '../route';
import { actorOf } from '../../domain/audit/policy';
import { envelope, pagedEnvelope } from '../schemas/common';
import {
  rejudgeResponseSchema,
  submissionHistoryItemSchema,
  submissionHistoryQuery,
  toSubmissionHistoryItem,
} from '../schemas/submissions';
import { listAllSubmissions } from '../../domain/submissions/history';
import {
  BULK_REJUDGE_STATUSES,
  rejudgeChallenge,
  rejudgeProgress,
} from '../../domain/submissions/bulk-rejudge';
import { iso } from '../../lib/time';

/** `status`: the submission statuses to judge again (default both). */
export const bulkRejudgeBody = z
  .object({
    status: z
      .array(z.enum(BULK_REJUDGE_STATUSES))
      .min(1)
      .optional()
      .describe('submission statuses to judge again; default ["complete", "failed"]'),
  })
  .strict();

const bulkRejudgeStartedSchema = z.object({
  rejudge_id: z.string().uuid(),
  count: z.number().int().describe('submissions judged again'),
});

export const rejudgeProgressSchema = z.object({
  id: z.string().uuid(),
  challenge_id: z.string().uuid(),
  status: z.enum(['running', 'done']),
  count: z.number().int(),
  done: z.number().int().describe('items judged (or superseded by a later run)'),
  items: z.array(
    z.object({
      submission_id: z.string().uuid(),
      agent_id: z.string().uuid(),
      agent_name: z.string(),
      old_score: z.number().nullable().describe('the score before; null where there was none'),
      new_score: z
        .number()
        .nullable()
        .describe('the score of this rejudge; null until judged, or when it failed'),
      old_private_score: z
        .number()
        .nullable()
        .describe('the private (held-out) score before; null without private tests'),
      new_private_score: z
        .number()
        .nullable()
        .describe('the private score of this rejudge; null until judged, or without private tests'),
      done: z.boolean(),
    }),
  ),
  statuses: z.array(z.string()),
  requested_at: z.string(),
  finished_at: z.string().nullable(),
});

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
      return { data: rows.map((row) => toSubmissionHistoryItem(row, true)), pagination };
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
  defineRoute({
    operationId: 'adminRejudgeChallenge',
    method: 'post',
    path: '/api/v1/admin/challenges/:id/rejudge',
    summary:
      'Operators: judge again every submission of a challenge in the given statuses (default complete and failed), at low priority; follow it at GET /api/v1/admin/rejudges/{rejudge_id}. One challenge.rejudge audit record.',
    tags: ['admin'],
    auth: 'admin',
    rateLimit: 'default',
    params: uuidParam,
    body: bulkRejudgeBody,
    responses: {
      202: { description: 'the runs are queued', schema: envelope(bulkRejudgeStartedSchema) },
      404: { description: 'NOT_FOUND: no such challenge' },
      409: { description: 'CONFLICT: a rejudge of this challenge is still running' },
    },
    async handler({ params, body, principal, deps }) {
      return {
        status: 202,
        data: await rejudgeChallenge(deps, actorOf(principal), params.id, body.status),
      };
    },
  }),
  defineRoute({
    operationId: 'adminGetRejudge',
    method: 'get',
    path: '/api/v1/admin/rejudges/:id',
    summary: "Operators: a challenge rejudge's progress, with each submission's old and new score",
    tags: ['admin'],
    auth: 'admin',
    rateLimit: 'default',
    params: uuidParam,
    responses: {
      200: { description: 'the rejudge', schema: envelope(rejudgeProgressSchema) },
      404: { description: 'NOT_FOUND: no such rejudge' },
    },
    async handler({ params, deps }) {
      const progress = await rejudgeProgress(deps, params.id);
      return {
        data: {
          ...progress,
          requested_at: progress.requested_at.toISOString(),
          finished_at: iso(progress.finished_at),
        },
      };
    },
  }),
];
