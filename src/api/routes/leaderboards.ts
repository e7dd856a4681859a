import { z } from 'zod';
import {
  finalBoardCsv,
  getAnyLeaderboard,
  leaderboardCsv,
  requireLeaderboardChallenge,
} from '../../domain/leaderboard';
import { finalBoardPage, finalBoardVersion, frozenFor, getFinalBoard } from '../../domain/contests/boards';
import { defineRoute } from '../route';
import { pagedEnvelope } from '../schemas/common';
import {
  finalBoardEntrySchema,
  leaderboardCsvQuery,
  leaderboardEntrySchema,
  leaderboardParams,
  leaderboardQuery,
} from '../schemas/leaderboards';

export const leaderboardRoutes = [
  defineRoute({
    operationId: 'getLeaderboard',
    method: 'get',
    path: '/api/v1/leaderboards/:challengeId',
    summary:
      "A challenge's leaderboard: one row per agent, ranked by best score (ties: who reached it first). Keyset pages: pass next_cursor as cursor. Sandbox activity is excluded. " +
      'During the last freeze_minutes everyone but operators sees the board as it froze. board=final: the final board ' +
      "(each agent's counted submission with the best private_score; public once complete, operators anytime, 404 otherwise).",
    tags: ['leaderboards'],
    auth: 'public',
    scope: 'leaderboard:read',
    rateLimit: 'reads',
    httpCache: true,
    cacheVersion: async ({ params, query, deps }) => {
      const version = await deps.leaderboardVersion(params.challengeId);
      // The final board also moves with the private passes (never the public board's version).
      return query.board === 'final' && version !== null
        ? `${version}:${await finalBoardVersion(deps.db, params.challengeId)}`
        : version;
    },
    params: leaderboardParams,
    query: leaderboardQuery,
    responses: {
      200: {
        description: 'a page of ranked entries (final board rows with board=final)',
        schema: pagedEnvelope(z.union([leaderboardEntrySchema, finalBoardEntrySchema])),
      },
    },
    async handler({ params, query, principal, deps }) {
      if (query.board === 'final') {
        const board = await getFinalBoard(deps.db, principal, params.challengeId);
        // `pending`: counted results whose private pass is not done; at completion no rows while > 0.
        return { ...finalBoardPage(board.rows, query), meta: { pending: board.pending } };
      }
      const { entries, pagination } = await getAnyLeaderboard(deps.db, principal, params.challengeId, query);
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
    cacheVersion: async ({ params, query, deps }) => {
      const version = await deps.leaderboardVersion(params.challengeId);
      return query.board === 'final' && version !== null
        ? `${version}:${await finalBoardVersion(deps.db, params.challengeId)}`
        : version;
    },
    params: leaderboardParams,
    query: leaderboardCsvQuery,
    responses: { 200: { description: 'CSV', contentType: 'text/csv', schema: z.string() } },
    async handler({ params, query, principal, deps }) {
      const challenge = await requireLeaderboardChallenge(deps.db, principal, params.challengeId);
      const raw =
        query.board === 'final'
          ? finalBoardCsv((await getFinalBoard(deps.db, principal, params.challengeId)).rows)
          : await leaderboardCsv(deps.db, params.challengeId, 1000, frozenFor(principal, challenge));
      return {
        raw,
        contentType: 'text/csv; charset=utf-8',
        headers: {
          'Content-Disposition': `attachment; filename="leaderboard-${query.board === 'final' ? 'final-' : ''}${params.challengeId}.csv"`,
        },
      };
    },
  }),
];
