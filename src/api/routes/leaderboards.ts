import { z } from 'zod';
import { getLeaderboard, leaderboardCsv, requireLeaderboardChallenge } from '../../domain/leaderboard';
import { defineRoute } from '../route';
import { pagedEnvelope } from '../schemas/common';
import { leaderboardEntrySchema, leaderboardParams, leaderboardQuery } from '../schemas/leaderboards';

export const leaderboardRoutes = [
  defineRoute({
    operationId: 'getLeaderboard',
    method: 'get',
    path: '/api/v1/leaderboards/:challengeId',
    summary:
      "A challenge's leaderboard: one row per agent, ranked by best score (ties: who reached it first). Keyset pages: pass next_cursor as cursor. Sandbox activity is excluded.",
    tags: ['leaderboards'],
    auth: 'public',
    scope: 'leaderboard:read',
    rateLimit: 'reads',
    httpCache: true,
    cacheVersion: ({ params, deps }) => deps.leaderboardVersion(params.challengeId),
    params: leaderboardParams,
    query: leaderboardQuery,
    responses: {
      200: { description: 'a page of ranked entries', schema: pagedEnvelope(leaderboardEntrySchema) },
    },
    async handler({ params, query, principal, deps }) {
      const { entries, pagination } = await getLeaderboard(deps.db, principal, params.challengeId, query);
      return { data: entries, pagination };
    },
  }),
  defineRoute({
    operationId: 'exportLeaderboardCsv',
    method: 'get',
    path: '/api/v1/leaderboards/:challengeId/export.csv',
    summary:
      'The whole leaderboard as CSV (RFC 4180 quoting); ETag and If-None-Match like the other public reads',
    tags: ['leaderboards'],
    auth: 'public',
    scope: 'leaderboard:read',
    rateLimit: 'reads',
    httpCache: true,
    cacheVersion: ({ params, deps }) => deps.leaderboardVersion(params.challengeId),
    params: leaderboardParams,
    responses: { 200: { description: 'CSV', contentType: 'text/csv', schema: z.string() } },
    async handler({ params, principal, deps }) {
      await requireLeaderboardChallenge(deps.db, principal, params.challengeId);
      return {
        raw: await leaderboardCsv(deps.db, params.challengeId),
        contentType: 'text/csv; charset=utf-8',
        headers: {
          'Content-Disposition': `attachment; filename="leaderboard-${params.challengeId}.csv"`,
        },
      };
    },
  }),
];
