import { findCurrentResultForSubmission, findResultById } from '../../db/queries/results';
import { assertMayReadResult } from '../../domain/submissions/policy';
import { findChallengeStatus } from '../../db/queries/leaderboard';
import { showsPrivateScore } from '../../domain/contests/policy';
import { notFound } from '../../errors';
import { defineRoute, uuidParam } from '../route';
import { envelope } from '../schemas/common';
import { resultSchema, toResult } from '../schemas/results';
import { matchResultSchema } from '../schemas/matches';
import { findMatchResult } from '../../domain/matches/reads';
import { z } from 'zod';

export const resultRoutes = [
  defineRoute({
    operationId: 'getResult',
    method: 'get',
    path: '/api/v1/results/:id',
    summary:
      'A result, by result id or by submission id (its current result; `kind: "submission"`): the owning agent and operators only, another agent\'s result is 403. Or a match\'s result (`kind: "match"`), by its result_id or the match id, for any credential with result:read, once the match is complete or void.',
    tags: ['results'],
    auth: 'bearer',
    scope: 'result:read',
    rateLimit: 'reads',
    params: uuidParam,
    responses: {
      200: { description: 'the result', schema: envelope(z.union([resultSchema, matchResultSchema])) },
    },
    async handler({ params, principal, deps }) {
      const result =
        (await findResultById(deps.db, params.id)) ??
        (await findCurrentResultForSubmission(deps.db, params.id));
      if (!result) {
        const matchResult = await findMatchResult(deps.db, principal, params.id);
        if (matchResult) return { data: matchResult };
        throw notFound('result');
      }
      assertMayReadResult(principal, result);
      const challenge = await findChallengeStatus(deps.db, result.challenge_id);
      return { data: toResult(result, showsPrivateScore(principal, result, challenge?.status ?? 'active')) };
    },
  }),
];
