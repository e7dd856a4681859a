import { rejudgeSubmission } from '../../domain/submissions/rejudge';
import { defineRoute, uuidParam } from '../route';
import { envelope } from '../schemas/common';
import { rejudgeResponseSchema } from '../schemas/submissions';

export const adminSubmissionRoutes = [
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
    async handler({ params, deps }) {
      return { status: 202, data: await rejudgeSubmission(deps, params.id) };
    },
  }),
];
