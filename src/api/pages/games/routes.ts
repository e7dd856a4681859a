/**
 * The games' pages (issue 31): /games and /games/:gameId, the rules a person reads before writing
 * a player (the same text as GET /api/v1/games/{id}). Pages are hidden from OpenAPI.
 */
import { z } from 'zod';
import { getGame, listGames } from '../../../domain/games/catalog';
import { headerAccount } from '../../../web/layout';
import { htmlPage, pageFor } from '../../html-page';
import { publicPage } from '../../page-routes';
import { renderGamePage, renderGamesPage } from './view';

export const gamePageRoutes = [
  publicPage('gamesPage', '/games', 'Web page: the built-in games', {
    scope: 'challenge:read',
    async handler({ webSession, ctx }) {
      return htmlPage(renderGamesPage({ games: listGames(), account: headerAccount(webSession, ctx.url) }));
    },
  }),
  publicPage('gamePage', '/games/:gameId', "Web page: a game's rules, schemas and baseline bot", {
    scope: 'challenge:read',
    params: z.object({ gameId: z.string().max(100) }),
    async handler({ params, webSession, ctx }) {
      return pageFor(
        async () => getGame(params.gameId),
        (game) => htmlPage(renderGamePage({ game, account: headerAccount(webSession, ctx.url) })),
      );
    },
  }),
];
