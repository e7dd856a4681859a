import { findCurrentResultForSubmission, findResultById } from '../../db/queries/results';
import { assertMayReadResult } from '../../domain/submissions/policy';
import { notFound } from '../../errors';
import { defineRoute, uuidParam } from '../route';
import { envelope } from '../schemas/common';
import { resultSchema, toResult } from '../schemas/results';

export const resultRoutes = [
  defineRoute({
    operationId: 'getResult',
    method: 'get',
    path: '/api/v1/results/:id',
    summary:
      "A result, by result id or by submission id (its current result). The owning agent and operators only; another agent's result is 403.",
    tags: ['results'],
    auth: 'bearer',
    scope: 'result:read',
    rateLimit: 'reads',
    params: uuidParam,
    responses: { 200: { description: 'the result', schema: envelope(resultSchema) } },
    async handler({ params, principal, deps }) {
      const result =
        (await findResultById(deps.db, params.id)) ??
        (await findCurrentResultForSubmission(deps.db, params.id));
      if (!result) throw notFound('result');
      assertMayReadResult(principal, result);
      return { data: toResult(result) };
    },
  }),
];
