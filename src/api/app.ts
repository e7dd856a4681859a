import Router from '@koa/router';
import Koa from 'koa';
import { resolveCredentials } from '../auth/authenticate';
import { rateLimitSubject } from '../auth/principal';
import type { AppDeps } from './deps';
import { requestBodyDeadline } from './middleware/body-deadline';
import { errorHandler } from './middleware/error-handler';
import { requestContext } from './middleware/request-context';
import { applyRateLimit, routePipeline } from './pipeline';
import type { AnyRouteDef } from './route';
import { allRoutes } from './routes';
import { embeddedOidcProvider } from './embedded-oidc';

/**
 * Static path segments before parameters (stable otherwise): the router runs the first matching
 * route, so `/challenges/assigned` must not be captured by `/challenges/:id`, whatever the order
 * of the route table.
 */
export function bySpecificity(a: AnyRouteDef, b: AnyRouteDef): number {
  const sa = a.path.split('/');
  const sb = b.path.split('/');
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const pa = sa[i].startsWith(':');
    const pb = sb[i].startsWith(':');
    if (pa !== pb) return pa ? 1 : -1;
  }
  return sa.length - sb.length; // a total order; otherwise stable (Array.prototype.sort is)
}

/** Koa path `/a/:id` → OpenAPI `/a/{id}` is done in openapi.ts; here routes register in specificity order. */
export function buildRouter(routes: AnyRouteDef[], deps: AppDeps): Router {
  const router = new Router();
  const seen = new Set<string>();
  for (const def of [...routes].sort(bySpecificity)) {
    if (seen.has(def.operationId)) throw new Error(`duplicate operationId ${def.operationId}`);
    seen.add(def.operationId);
    if (def.httpCache && (def.method !== 'get' || def.idempotent))
      throw new Error(`${def.operationId}: httpCache is for GET reads`);
    router.register(def.path, [def.method.toUpperCase()], routePipeline(def, deps), {
      name: def.operationId,
    });
  }
  return router;
}

const isApiPath = (path: string) => path === '/api' || path.startsWith('/api/');

/** Unknown routes still get the rate-limit headers (and count against the caller's budget). */
function unmatchedRouteRateLimit(deps: AppDeps): Koa.Middleware {
  return async (ctx) => {
    const outcome = await resolveCredentials(
      deps,
      deps.jwt,
      { authorization: ctx.get('authorization') || undefined },
      deps.credentialCache,
    );
    const principal = outcome.ok ? outcome.principal : { kind: 'anonymous' as const };
    // Outside /api/ an unknown path is a page someone followed: the HTML 404, on the pages budget.
    const page = !isApiPath(ctx.path);
    if (page) ctx.state.errorStyle = 'html';
    const category = page ? 'pages' : principal.kind === 'anonymous' ? 'anonymous' : 'default';
    await applyRateLimit(ctx, deps, category, rateLimitSubject(principal, ctx.ip));
    // errorHandler turns the untouched 404 into the NOT_FOUND envelope (or the HTML 404 page).
  };
}

export function createApp(deps: AppDeps, routes: AnyRouteDef[] = allRoutes()): Koa {
  const app = new Koa();
  app.proxy = deps.config.TRUST_PROXY;
  // The client is the entry TRUST_PROXY_HOPS places from the right of X-Forwarded-For (the last one
  // no trusted proxy wrote); entries further left are the client's own claims (docs/decisions/security.md).
  app.maxIpsCount = deps.config.TRUST_PROXY_HOPS ?? 1;
  // Errors are answered by errorHandler; Koa's default handler would print stacks to stderr.
  app.silent = true;
  app.on('error', (err) => deps.logger.error({ err }, 'koa error'));
  const router = buildRouter(routes, deps);
  app.use(requestContext(deps.logger));
  app.use(requestBodyDeadline(deps.config.REQUEST_TIMEOUT_MS, deps.logger));
  app.use(errorHandler(deps.logger));
  // Development and tests: the embedded OpenID provider under /oidc (production refuses it).
  if (deps.signIn.mode === 'embedded') app.use(embeddedOidcProvider(deps));
  app.use(router.routes());
  app.use(unmatchedRouteRateLimit(deps));
  return app;
}
