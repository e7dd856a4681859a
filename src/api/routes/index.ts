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
import { pageRoutes } from './pages';
import { webSignInRoutes } from './web-sign-in';
import { accountFormRoutes, accountPageRoutes } from './account-pages';
import { languageRoutes } from './languages';
import { deliveryPageRoutes } from './delivery-pages';
import { adminPageRoutes } from './admin-pages';

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
    ...adminChallengeRoutes,
    ...webhookRoutes,
    ...sessionRoutes,
    ...submissionRoutes,
    ...resultRoutes,
    ...leaderboardRoutes,
    ...adminSubmissionRoutes,
    ...adminAuditRoutes,
    ...pageRoutes,
    ...webSignInRoutes,
    ...accountPageRoutes,
    ...accountFormRoutes,
    ...deliveryPageRoutes,
    ...adminPageRoutes,
  ];
}
