import type Koa from 'koa';
import { z, type ZodTypeAny } from 'zod';
import type { Principal } from '../auth/principal';
import type { Pagination } from '../lib/pagination';
import type { Config } from '../config';
import type { Scope } from '../auth/scopes';
import type { AppDeps } from './deps';
import type { RateLimitCategory } from './rate-limits';
import type { WebSession } from '../domain/accounts/web-sessions';
import type { ParsedForm } from './form-body';

/**
 * How a route authenticates:
 * - public: anonymous allowed; a presented credential must be valid, and an API token needs `scope`.
 * - bearer: an API token (with `scope`) or a session JWT (acts as the user).
 * - jwt: a session JWT only (e.g. creating API tokens).
 * - admin: a session JWT with role admin (operators).
 * - agentKey: a connector key in `x-service-api-key`; errors use the flat `{error: string}` body.
 * - webSession: a page for a person signed in on the web (the session cookie, never a bearer
 *   credential); signed out → redirect to /login; POSTs are forms checked for CSRF; errors are pages.
 */
export type AuthMode = 'public' | 'bearer' | 'jwt' | 'admin' | 'agentKey' | 'webSession';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export const paginationSchema: z.ZodType<Pagination> = z.object({
  total: z.number().int().optional(),
  page: z.number().int().optional(),
  limit: z.number().int(),
  has_more: z.boolean(),
  next_cursor: z.string().nullable().optional(),
});

export type HandlerResult =
  /** Wrapped in the success envelope `{data, request_id, pagination?}`. */
  | {
      status?: number;
      data: unknown;
      pagination?: Pagination;
      headers?: Record<string, string>;
      /** Top-level fields after `pagination` (the final board's `pending`); never data or request_id. */
      meta?: Record<string, unknown>;
    }
  /** Sent as is (connector bodies, CSV, HTML). */
  | { status?: number; raw: unknown; contentType?: string; headers?: Record<string, string> }
  /** The handler wrote the response itself (Server-Sent Events). */
  | { streamed: true }
  /** A redirect (pages and forms: 303 after a form post, 302 otherwise), to a path of this site or the identity provider. */
  | { redirect: string; status?: 302 | 303; headers?: Record<string, string> };

type UserPrincipal = Extract<Principal, { kind: 'user' }>;

/**
 * The caller a handler sees, by the route's `auth`: the pipeline has already refused everyone
 * else (src/api/pipeline.ts), so a handler never re-checks `principal.kind`.
 */
export type PrincipalOf<A extends AuthMode> = A extends 'admin'
  ? UserPrincipal & { role: 'admin' }
  : A extends 'jwt' | 'webSession'
    ? UserPrincipal
    : A extends 'bearer'
      ? Extract<Principal, { kind: 'user' | 'apiToken' }>
      : A extends 'agentKey'
        ? Extract<Principal, { kind: 'agentKey' }>
        : Principal;

export interface HandlerInput<P, Q, B, A extends AuthMode = AuthMode> {
  params: P;
  query: Q;
  body: B;
  principal: PrincipalOf<A>;
  deps: AppDeps;
  requestId: string;
  /** Validated Idempotency-Key header, on routes that accept one. */
  idempotencyKey: string | null;
  ctx: Koa.Context;
  /** The person signed in on the web (webSession routes: always; public pages with `showsAccount`); else null. */
  webSession: A extends 'webSession' ? WebSession : WebSession | null;
  /** The posted form of a webSession POST, after its CSRF check (files included); else null. */
  form: ParsedForm | null;
}

export interface RouteDef<
  P extends ZodTypeAny = ZodTypeAny,
  Q extends ZodTypeAny = ZodTypeAny,
  B extends ZodTypeAny = ZodTypeAny,
  A extends AuthMode = AuthMode,
> {
  operationId: string;
  method: HttpMethod;
  /** Koa-style path, e.g. /api/v1/challenges/:id */
  path: string;
  summary: string;
  tags: string[];
  auth: A;
  /** Scope an API token must carry (bearer and public routes). Declared once, here. */
  scope?: Scope;
  rateLimit: RateLimitCategory;
  /**
   * Health and readiness probes: the response reports the caller's budget (X-RateLimit-*) but the
   * request spends none of it and is never refused with 429, so a burst from an address cannot
   * make its orchestrator's probes fail.
   */
  unmetered?: boolean;
  /** Accepts an Idempotency-Key header (replays, 409 on a reused key). */
  idempotent?: boolean;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * Accepts JSON bodies up to LARGE_JSON_BODY_LIMIT instead of JSON_BODY_LIMIT (operator routes
   * carrying a judge config with program tests); parsed only after authentication.
   */
  largeBody?: boolean;
  responses: Record<number, { description: string; schema?: ZodTypeAny; contentType?: string }>;
  /**
   * A public read that HTTP caches may keep: 200s carry a strong ETag over what they show,
   * If-None-Match answers 304 without a body, Cache-Control by audience (src/api/http-cache.ts).
   * GET only; the handler must answer an envelope or a string/Buffer body (not a stream).
   */
  httpCache?: boolean;
  /**
   * With httpCache: a cheap read of the version of what the answer shows (null: unknown, do not
   * cache). Each process then keeps the rendered answer per version and serves it again without
   * running the handler; the version must change whenever anything the answer shows changes.
   */
  cacheVersion?: (input: { params: z.infer<P>; query: z.infer<Q>; deps: AppDeps }) => Promise<string | null>;
  /** Hidden from the OpenAPI document (HTML pages). */
  internal?: boolean;
  /** A public page that shows who is signed in (the header's account part); reads the session cookie. */
  showsAccount?: boolean;
  /**
   * webSession routes of the operators' console (/admin): a signed-in person who is not an
   * operator gets the 403 page before anything else is read (form bodies included).
   */
  operatorsOnly?: boolean;
  /** webSession routes: where a signed-out request goes instead of /login (e.g. POST /logout → /). */
  whenSignedOut?: string;
  /**
   * When this answers true the route checks its own credential (GET /metrics with METRICS_TOKEN):
   * the pipeline does not read Authorization as a user credential, and rate-limits per address.
   */
  ownCredential?: (config: Config) => boolean;
  handler: (input: HandlerInput<z.infer<P>, z.infer<Q>, z.infer<B>, A>) => Promise<HandlerResult>;
}

// Route tables are heterogeneous; the generic parameters only serve inference inside defineRoute.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRouteDef = RouteDef<any, any, any, any>;

/**
 * Identity function that infers handler input types from the zod schemas, and the handler's
 * `principal` and `webSession` from the route's `auth` (PrincipalOf).
 */
export function defineRoute<
  P extends ZodTypeAny = z.ZodUndefined,
  Q extends ZodTypeAny = z.ZodUndefined,
  B extends ZodTypeAny = z.ZodUndefined,
  A extends AuthMode = AuthMode,
>(def: RouteDef<P, Q, B, A>): AnyRouteDef {
  return def as AnyRouteDef;
}

/** Standard error responses, so every route documents the envelope the same way. */
export const uuidParam = z.object({ id: z.string().uuid() });

/**
 * A route that answers an HTML page: its errors are HTML pages too (src/web/error-page.ts), and it
 * spends the `pages` rate-limit budget, apart from the API's (DESIGN.md "People signing in").
 */
export function isPageRoute(def: { responses: Record<number, { contentType?: string }> }): boolean {
  // Any HTML answer, not only a 200: /auth/callback answers 303 or an HTML 400, and its other
  // failures (a stale bearer header, the rate limit) must be pages too.
  return Object.values(def.responses).some((r) => r.contentType === 'text/html');
}
