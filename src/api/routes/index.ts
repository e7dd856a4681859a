import type { AnyRouteDef } from '../route';
import { adminChallengeRoutes } from './admin-challenges';
import { agentRoutes } from './agents';
import { challengeRoutes } from './challenges';
import { connectorRoutes } from './connector';
import { spectatorRoutes } from './spectator';
import { systemRoutes } from './system';
import { tokenRoutes } from './tokens';
import { sessionRoutes } from './sessions';
import { submissionRoutes } from './submissions';
import { resultRoutes } from './results';
import { leaderboardRoutes } from './leaderboards';
import { adminSubmissionRoutes } from './admin-submissions';
import { adminAuditRoutes } from './admin-audit';
import { webhookRoutes } from './webhooks';
import { pageRoutes } from '../pages/challenges/routes';
import { webSignInRoutes } from '../pages/accounts/sign-in-routes';
import { accountFormRoutes, accountPageRoutes } from '../pages/accounts/routes';
import { languageRoutes } from './languages';
import { gameRoutes } from './games';
import { deliveryPageRoutes } from '../pages/webhooks/routes';
import { consolePageRoutes } from '../pages/console/routes';
import { consoleChallengeRoutes } from '../pages/challenges/console-routes';
import { consoleMatchRoutes } from '../pages/matches/console-routes';
import { consoleSubmissionRoutes } from '../pages/submissions/console-routes';
import { consoleAuditRoutes } from '../pages/audit/console-routes';
import { contestRoutes } from './contests';
import { contestPageRoutes } from '../pages/contests/routes';
import { matchRoutes } from './matches';
import { matchPageRoutes } from '../pages/matches/routes';
import { gamePageRoutes } from '../pages/games/routes';

/**
 * The route table: every HTTP operation of the service, declared once. The router, the OpenAPI
 * document and the scope × route security tests are all generated from it.
 */
export function allRoutes(): AnyRouteDef[] {
  return [
    ...systemRoutes(allRoutes),
    ...tokenRoutes,
    ...connectorRoutes,
    ...spectatorRoutes,
    ...agentRoutes,
    ...challengeRoutes,
    ...languageRoutes,
    ...gameRoutes,
    ...adminChallengeRoutes,
    ...webhookRoutes,
    ...sessionRoutes,
    ...submissionRoutes,
    ...resultRoutes,
    ...leaderboardRoutes,
    ...matchRoutes,
    ...matchPageRoutes,
    ...gamePageRoutes,
    ...adminSubmissionRoutes,
    ...adminAuditRoutes,
    ...pageRoutes,
    ...webSignInRoutes,
    ...accountPageRoutes,
    ...accountFormRoutes,
    ...deliveryPageRoutes,
    ...consolePageRoutes,
    ...consoleChallengeRoutes,
    ...consoleMatchRoutes,
    ...consoleSubmissionRoutes,
    ...consoleAuditRoutes,
    ...contestRoutes,
    ...contestPageRoutes,
  ];
}
