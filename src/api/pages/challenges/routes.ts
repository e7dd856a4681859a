import { z } from 'zod';
import { listChallenges } from '../../../db/queries/challenges';
import { requireVisibleChallenge } from '../../../domain/challenges/lifecycle';
import { withPublicEntryCount, withPublicEntryCounts } from '../../../domain/contests/boards';
import { visibleStatuses } from '../../../domain/challenges/policy';
import { getLeaderboard } from '../../../domain/leaderboard';
import { pageContestParts } from '../../../domain/contests/page';
import { renderChallengePage, renderHomePage } from './view';
import { htmlPage, pageFor } from '../../html-page';
import { headerAccount } from '../../../web/layout';
import { uuidParam } from '../../route';
import { publicPage } from '../../page-routes';
import { safeText } from '../../schemas/common';
import { takePartClosedReason } from '../../../domain/challenges/rules';
import { submissionsLeftForOwner } from '../../../domain/submissions/allowance';
import { isMatchFormat } from '../../../domain/matches/rules';
import { listMatchesPage } from '../../../domain/matches/reads';
import { matchLeaderboard } from '../../../domain/matches/board';
import { heldRatedOutcomes, pageHold } from '../../../domain/matches/shown';
import { voidableMatchIds } from '../../../domain/matches/policy';

const HOME_PAGE_SIZE = 24;
const FIRST_LEADERBOARD_PAGE = 50;
/** Newest matches on a match challenge's page; the rest through each agent's page or the API. */
const RECENT_MATCHES = 10;

/** Pages take any query: a value that does not fit falls back to the default instead of a JSON 400. */
const homeQuery = z.object({
  status: z.enum(['active', 'complete', 'archived']).catch('active'),
  category: safeText(100, 1).optional().catch(undefined),
  format: safeText(100, 1).optional().catch(undefined),
  page: z.coerce.number().int().min(1).max(10_000).catch(1),
});

/** Server-rendered pages for competitors and spectators (./view.ts); hidden from OpenAPI. */
export const pageRoutes = [
  publicPage('homePage', '/', 'Web page: active and upcoming challenges, with filters and paging', {
    scope: 'challenge:read',
    query: homeQuery,
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
          rows: await withPublicEntryCounts(deps.db, principal, rows),
          total,
          limit: HOME_PAGE_SIZE,
          filters: query,
          account: headerAccount(webSession, ctx.url),
        }),
      );
    },
  }),
  publicPage(
    'challengePage',
    '/challenges/:id',
    "Web page: a challenge's description, rules and leaderboard",
    {
      scope: 'challenge:read',
      params: uuidParam,
      async handler({ params, principal, deps, webSession, ctx }) {
        return pageFor(
          async () =>
            withPublicEntryCount(
              deps.db,
              principal,
              await requireVisibleChallenge(deps.db, principal, params.id),
            ),
          async (challenge) => {
            const matchFormat = isMatchFormat(challenge.format);
            const hold = pageHold(principal, deps.config);
            // Ratings and records as they stood before the matches the page still holds.
            const held = matchFormat
              ? await heldRatedOutcomes(deps.db, challenge.weight_class_id, hold)
              : undefined;
            // A match challenge ranks by rating, as GET /api/v1/leaderboards/{id} (which the page's
            // script refreshes from) does; the score board is for solo formats.
            const [board, ratingPage, recentMatches, yourAgents, contest] = await Promise.all([
              matchFormat
                ? undefined
                : getLeaderboard(deps.db, principal, challenge.id, { limit: FIRST_LEADERBOARD_PAGE }),
              matchFormat
                ? matchLeaderboard(deps.db, challenge, { limit: FIRST_LEADERBOARD_PAGE }, held)
                : undefined,
              matchFormat
                ? listMatchesPage(deps.db, principal, { challengeId: challenge.id, limit: RECENT_MATCHES })
                : undefined,
              webSession ? submissionsLeftForOwner(deps.db, webSession.userId, challenge.id) : undefined,
              pageContestParts(deps.db, challenge, webSession),
            ]);
            return htmlPage(
              renderChallengePage({
                challenge,
                entries: board?.entries ?? [],
                hasMore: (board ?? ratingPage)?.pagination.has_more ?? false,
                baseUrl: deps.config.PUBLIC_BASE_URL ?? ctx.origin,
                account: headerAccount(webSession, ctx.url),
                takePartClosed: takePartClosedReason(challenge),
                yourAgents,
                frozenSince: board?.frozenSince ?? null,
                finalBoard: contest.finalBoard,
                finalPending: contest.finalPending,
                clarifications: contest.clarifications,
                csrfToken: webSession?.csrfToken ?? null,
                recentMatches: recentMatches?.data,
                matchHold: hold,
                ratingBoard: ratingPage?.entries,
                // The matches as they are (not as held): an operator voids what can still be voided.
                voidableMatches: recentMatches ? voidableMatchIds(webSession, recentMatches.data) : null,
              }),
            );
          },
        );
      },
    },
  ),
];
