import { z } from 'zod';
import { listChallenges } from '../../db/queries/challenges';
import { requireVisibleChallenge } from '../../domain/challenges/lifecycle';
import { visibleStatuses } from '../../domain/challenges/policy';
import { getLeaderboard } from '../../domain/leaderboard';
import { renderChallengePage, renderHomePage } from '../../web/pages';
import { htmlPage, pageFor } from '../html-page';
import { headerAccount } from '../../web/layout';
import { defineRoute, uuidParam } from '../route';
import { safeText } from '../schemas/common';

const HOME_PAGE_SIZE = 24;
const FIRST_LEADERBOARD_PAGE = 50;

/** Pages take any query: a value that does not fit falls back to the default instead of a JSON 400. */
const homeQuery = z.object({
  status: z.enum(['active', 'complete', 'archived']).catch('active'),
  category: safeText(100, 1).optional().catch(undefined),
  format: safeText(100, 1).optional().catch(undefined),
  page: z.coerce.number().int().min(1).max(10_000).catch(1),
});

/** Server-rendered pages for competitors and spectators (src/web/pages.ts); hidden from OpenAPI. */
export const pageRoutes = [
  defineRoute({
    operationId: 'homePage',
    method: 'get',
    path: '/',
    summary: 'Web page: active and upcoming challenges, with filters and paging',
    tags: ['pages'],
    auth: 'public',
    scope: 'challenge:read',
    rateLimit: 'reads',
    internal: true,
    showsAccount: true,
    query: homeQuery,
    responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
    async handler({ query, principal, deps, webSession, ctx }) {
      const { rows, total } = await listChallenges(
        deps.db,
        {
          statuses: visibleStatuses(principal, query.status),
          category: query.category,
          format: query.format,
        },
        { limit: HOME_PAGE_SIZE, offset: (query.page - 1) * HOME_PAGE_SIZE },
      );
      return htmlPage(
        renderHomePage({
          rows,
          total,
          limit: HOME_PAGE_SIZE,
          filters: query,
          account: headerAccount(webSession, ctx.url),
        }),
      );
    },
  }),
  defineRoute({
    operationId: 'challengePage',
    method: 'get',
    path: '/challenges/:id',
    summary: "Web page: a challenge's description, rules and leaderboard",
    tags: ['pages'],
    auth: 'public',
    scope: 'challenge:read',
    rateLimit: 'reads',
    internal: true,
    showsAccount: true,
    params: uuidParam,
    responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
    async handler({ params, principal, deps, webSession, ctx }) {
      return pageFor(
        () => requireVisibleChallenge(deps.db, principal, params.id),
        async (challenge) => {
          const { entries, pagination } = await getLeaderboard(deps.db, principal, challenge.id, {
            limit: FIRST_LEADERBOARD_PAGE,
          });
          return htmlPage(
            renderChallengePage({
              challenge,
              entries,
              hasMore: pagination.has_more,
              baseUrl: deps.config.PUBLIC_BASE_URL ?? ctx.origin,
              account: headerAccount(webSession, ctx.url),
            }),
          );
        },
      );
    },
  }),
];
