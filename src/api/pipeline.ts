import type Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import type { z, ZodTypeAny } from 'zod';
import { resolveCredentials, type CredentialOutcome } from '../auth/authenticate';
import { hasScope, isAdmin, rateLimitSubject, type Principal } from '../auth/principal';
import { canonicalJson } from '../lib/canonical-json';
import { httpResponseCacheLookups, rateLimitedTotal } from '../lib/metrics';
import type { AppDeps } from './deps';
import { ApiError, describeZodIssues, httpStatusOf } from './errors';
import { forbidden, unauthorized } from '../errors';
import {
  cacheControlFor,
  ifNoneMatchHits,
  ResponseCache,
  strongEtag,
  versionEtag,
  type RenderedAnswer,
} from './http-cache';
import { IDEMPOTENCY_KEY_PATTERN, requestHash, runIdempotent } from './middleware/idempotency';
import type { RateLimitCategory } from './rate-limits';
import { isPageRoute, type AnyRouteDef, type HandlerResult } from './route';
import { unstorableString } from './schemas/common';
import { ServiceError } from '../errors';
import { renderErrorPage } from '../web/error-page';
import type { RenderedPage } from '../web/layout';
import {
  FormBodyError,
  LARGE_FORM_BODY_LIMIT_BYTES,
  formValue,
  readFormBody,
  type ParsedForm,
} from './form-body';
import { htmlPage } from './html-page';
import {
  csrfRefusal,
  currentWebSession,
  signInRedirect,
  siteOrigin,
  stashSignedOutForm,
} from './web-session-http';

/** Retry-After (seconds) on the 503 answered while the identity provider's JWKS cannot be fetched. */
export const IDENTITY_PROVIDER_RETRY_AFTER_SEC = 5;

/** 2 MiB covers 100,000 characters of content plus files; larger bodies get 413. */
export const JSON_BODY_LIMIT = '2mb';

/** A judge config may hold 8 MB of JSON (program tests); escaping and the other fields fit in 10. */
export const LARGE_JSON_BODY_LIMIT = '10mb';

function jsonBodyParser(jsonLimit: string) {
  return bodyParser({
    enableTypes: ['json'],
    jsonLimit,
    strict: true,
    // Without this the parser answers by itself; we want our envelope.
    onerror: (err) => {
      throw err;
    },
  });
}
const parseJsonBody = jsonBodyParser(JSON_BODY_LIMIT);
const parseLargeJsonBody = jsonBodyParser(LARGE_JSON_BODY_LIMIT);

function clientIp(ctx: Koa.Context): string {
  return ctx.ip || ctx.request.socket.remoteAddress || 'unknown';
}

/** Counts the request against the budget (429 past it), or with `unmetered` only reports the budget. */
export async function applyRateLimit(
  ctx: Koa.Context,
  deps: AppDeps,
  category: RateLimitCategory,
  subject: string,
  unmetered = false,
): Promise<void> {
  const decision = unmetered
    ? await deps.rateLimiter.peek(category, subject)
    : await deps.rateLimiter.consume(category, subject);
  ctx.set('X-RateLimit-Limit', String(decision.limit));
  ctx.set('X-RateLimit-Remaining', String(decision.remaining));
  ctx.set('X-RateLimit-Reset', String(decision.resetAt));
  if (!decision.allowed && !unmetered) {
    rateLimitedTotal.inc({ category });
    throw new ApiError('RATE_LIMITED', 'too many requests; retry after the window resets', {
      'Retry-After': String(decision.retryAfterSec),
    });
  }
}

/**
 * Whose Idempotency-Keys these are: an API token or connector key acts for its agent (so two
 * agents may use the same key), a session JWT for its user, an anonymous caller per client IP.
 */
export function idempotencyOwner(principal: Principal, ip: string): string {
  switch (principal.kind) {
    case 'apiToken':
    case 'agentKey':
      return `agent:${principal.agentId}`;
    case 'user':
      return `user:${principal.userId}`;
    default:
      return `ip:${ip}`;
  }
}

function parseOrThrow<S extends ZodTypeAny>(
  schema: S | undefined,
  value: unknown,
  where: string,
): z.infer<S> {
  if (!schema) return undefined;
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ApiError('VALIDATION_ERROR', describeZodIssues(parsed.error.issues, where));
  return parsed.data;
}

function hasRequestBody(ctx: Koa.Context): boolean {
  const length = ctx.get('content-length');
  return (length !== '' && length !== '0') || ctx.get('transfer-encoding') !== '';
}

function enforceAuth(def: AnyRouteDef, principal: Principal): void {
  switch (def.auth) {
    case 'public':
      break;
    case 'agentKey':
      if (principal.kind !== 'agentKey') throw unauthorized('missing or invalid x-service-api-key');
      break;
    case 'bearer':
      if (principal.kind !== 'apiToken' && principal.kind !== 'user') throw unauthorized();
      break;
    case 'jwt':
      if (principal.kind !== 'user') {
        throw principal.kind === 'apiToken'
          ? forbidden('this operation requires a session JWT, not an API token')
          : unauthorized('a session JWT is required');
      }
      break;
    case 'admin':
      if (principal.kind !== 'user')
        throw principal.kind === 'apiToken'
          ? forbidden('operators only')
          : unauthorized('a session JWT is required');
      if (!isAdmin(principal)) throw forbidden('operators only');
      break;
  }
  if (def.scope && principal.kind !== 'anonymous' && !hasScope(principal, def.scope)) {
    throw forbidden(`this token lacks the ${def.scope} scope`);
  }
}

function writeResult(ctx: Koa.Context, result: HandlerResult): { status: number; body: unknown } | null {
  if ('streamed' in result) return null;
  if ('redirect' in result) {
    if (result.headers) for (const [k, v] of Object.entries(result.headers)) ctx.set(k, v);
    ctx.status = result.status ?? 302;
    ctx.set('Location', result.redirect);
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = 'Redirecting';
    return { status: ctx.status, body: null };
  }
  if (result.headers) for (const [k, v] of Object.entries(result.headers)) ctx.set(k, v);
  if ('raw' in result) {
    ctx.status = result.status ?? 200;
    if (result.contentType) ctx.type = result.contentType;
    ctx.body = result.raw;
    return { status: ctx.status, body: result.raw };
  }
  const body: Record<string, unknown> = { data: result.data, request_id: ctx.state.requestId };
  if (result.pagination) body.pagination = result.pagination;
  for (const [key, value] of Object.entries(result.meta ?? {})) if (!(key in body)) body[key] = value;
  ctx.status = result.status ?? 200;
  ctx.body = body;
  return { status: ctx.status, body };
}

/**
 * A cacheable route's 200, rendered: the envelope is serialised here (once) so its ETag covers
 * exactly the data and pagination shown, not the per-request request_id. Null for anything else
 * (another status, a stream), which is written as usual.
 */
function renderCacheable(result: HandlerResult): RenderedAnswer | null {
  if ('streamed' in result || 'redirect' in result || (result.status ?? 200) !== 200) return null;
  const headers = result.headers ?? {};
  if ('raw' in result) {
    if (typeof result.raw !== 'string' && !Buffer.isBuffer(result.raw))
      throw new Error('httpCache routes answer a string or Buffer body');
    return {
      etag: strongEtag(result.raw),
      raw: result.raw,
      contentType: result.contentType ?? 'application/octet-stream',
      headers,
      bytes: Buffer.byteLength(result.raw),
    };
  }
  const dataJson = JSON.stringify(result.data);
  const paginationJson = result.pagination === undefined ? undefined : JSON.stringify(result.pagination);
  const metaJson =
    result.meta === undefined
      ? undefined
      : Object.entries(result.meta)
          .filter(([key]) => !['data', 'request_id', 'pagination'].includes(key))
          .map(([key, value]) => `,${JSON.stringify(key)}:${JSON.stringify(value)}`)
          .join('');
  const shown = paginationJson === undefined ? dataJson : `${dataJson}\n${paginationJson}`;
  return {
    etag: strongEtag(metaJson ? `${shown}\n${metaJson}` : shown),
    dataJson,
    paginationJson,
    metaJson,
    contentType: 'application/json; charset=utf-8',
    headers,
    bytes: dataJson.length + (paginationJson?.length ?? 0) + (metaJson?.length ?? 0),
  };
}

/** A 304: the tag, Cache-Control and Vary a 200 would carry, no body. */
function sendNotModified(ctx: Koa.Context, etag: string, principal: Principal): void {
  ctx.set('ETag', etag);
  ctx.set('Cache-Control', cacheControlFor(principal));
  ctx.vary('Authorization');
  ctx.status = 304;
}

/** Sends a rendered answer: its ETag and Cache-Control, then a 304 when the client's copy is current. */
function sendRendered(ctx: Koa.Context, answer: RenderedAnswer, principal: Principal): void {
  if (ifNoneMatchHits(ctx.get('if-none-match') || undefined, answer.etag)) {
    sendNotModified(ctx, answer.etag, principal);
    return;
  }
  for (const [k, v] of Object.entries(answer.headers)) ctx.set(k, v);
  ctx.set('ETag', answer.etag);
  ctx.set('Cache-Control', cacheControlFor(principal));
  ctx.vary('Authorization');
  ctx.status = 200;
  ctx.type = answer.contentType;
  // Byte for byte what JSON.stringify of {data, request_id, pagination?} gives.
  ctx.body =
    answer.raw ??
    `{"data":${answer.dataJson},"request_id":${JSON.stringify(ctx.state.requestId)}${answer.paginationJson === undefined ? '' : `,"pagination":${answer.paginationJson}`}${answer.metaJson ?? ''}}`;
}

/** Rendered answers kept per cacheable route with a version, in each process. */
const RESPONSE_CACHE_BYTES = 32 * 1024 * 1024;

/**
 * The one path every route takes: credentials → rate limit → auth/scope → body → validation →
 * idempotency → handler. Declared per route in the route table, so no route can skip a step.
 */
export function routePipeline(def: AnyRouteDef, deps: AppDeps): Koa.Middleware {
  const responseCache = def.httpCache && def.cacheVersion ? new ResponseCache(RESPONSE_CACHE_BYTES) : null;
  if (def.auth === 'webSession') return webSessionPipeline(def, deps);
  const page = isPageRoute(def);
  return async (ctx) => {
    ctx.state.operationId = def.operationId;
    if (def.auth === 'agentKey') ctx.state.errorStyle = 'flat';
    if (page) ctx.state.errorStyle = 'html';

    const outcome: CredentialOutcome = def.ownCredential?.(deps.config)
      ? { ok: true, principal: { kind: 'anonymous' } }
      : await resolveCredentials(
          deps,
          deps.jwt,
          def.auth === 'agentKey'
            ? { agentKey: ctx.get('x-service-api-key') || undefined }
            : { authorization: ctx.get('authorization') || undefined },
          deps.credentialCache,
        );
    const principal: Principal = outcome.ok ? outcome.principal : { kind: 'anonymous' };
    const category: RateLimitCategory = page
      ? 'pages'
      : principal.kind === 'anonymous'
        ? 'anonymous'
        : def.rateLimit;
    await applyRateLimit(ctx, deps, category, rateLimitSubject(principal, clientIp(ctx)), def.unmetered);
    if (!outcome.ok) {
      if (outcome.unavailable) {
        deps.logger.warn(
          { request_id: ctx.state.requestId, reason: outcome.detail },
          'session JWT not verified: identity provider keys unavailable',
        );
        throw new ApiError('SERVICE_UNAVAILABLE', outcome.reason, {
          'Retry-After': String(IDENTITY_PROVIDER_RETRY_AFTER_SEC),
        });
      }
      throw unauthorized(outcome.reason);
    }
    enforceAuth(def, principal);
    ctx.state.principal = principal;

    let rawBody: unknown = undefined;
    if (def.body) {
      if (hasRequestBody(ctx) && !ctx.is('application/json')) {
        throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'request body must be application/json');
      }
      await (def.largeBody ? parseLargeJsonBody : parseJsonBody)(ctx, async () => undefined);
      rawBody = hasRequestBody(ctx) ? (ctx.request as { body?: unknown }).body : undefined;
    }

    const params = parseOrThrow(def.params, ctx.params, 'path');
    const query = parseOrThrow(def.query, ctx.query, 'query');
    // Before the schema: PostgreSQL can store neither NUL nor unpaired surrogates (text or jsonb).
    const unstorable = def.body ? unstorableString(rawBody) : null;
    if (unstorable) throw new ApiError('VALIDATION_ERROR', describeZodIssues([unstorable], 'body'));
    const body = def.body ? parseOrThrow(def.body, rawBody ?? {}, 'body') : undefined;

    let idempotencyKey: string | null = null;
    const keyHeader = ctx.get('idempotency-key');
    // A header that is present but empty is a malformed key, not an absent one.
    if (def.idempotent && ctx.headers['idempotency-key'] !== undefined) {
      if (!IDEMPOTENCY_KEY_PATTERN.test(keyHeader)) {
        throw new ApiError('VALIDATION_ERROR', 'Idempotency-Key must be exactly 64 hexadecimal characters');
      }
      idempotencyKey = keyHeader.toLowerCase();
    }

    const run = async () =>
      def.handler({
        params,
        query,
        body,
        principal,
        deps,
        requestId: ctx.state.requestId,
        idempotencyKey,
        ctx,
        webSession: def.showsAccount ? await currentWebSession(ctx, deps) : null,
        form: null,
      });

    if (def.httpCache) {
      // What the answer shows has a version (a cheap read): its ETag names that version, so a
      // client's current copy gets its 304 before anything is looked up or rendered, and an answer
      // rendered for that version in this process is sent again without running the handler.
      const readVersion = () =>
        responseCache && def.cacheVersion ? def.cacheVersion({ params, query, deps }) : null;
      const version = await readVersion();
      const key =
        version === null
          ? null
          : `${isAdmin(principal) ? 'operator' : 'public'} ${version} ${canonicalJson({ params, query })}`;
      const tag = key === null ? null : versionEtag(def.operationId, key);
      if (tag !== null && ifNoneMatchHits(ctx.get('if-none-match') || undefined, tag)) {
        sendNotModified(ctx, tag, principal);
        return;
      }
      const cached = key === null ? undefined : responseCache!.get(key);
      if (key !== null)
        httpResponseCacheLookups.inc({ route: def.operationId, outcome: cached ? 'hit' : 'miss' });
      if (cached) {
        sendRendered(ctx, cached, principal);
        return;
      }
      const result = await run();
      const rendered = renderCacheable(result);
      if (!rendered) {
        writeResult(ctx, result);
        return;
      }
      // The version is read before the handler and again after it: only when nothing moved it
      // in between is the answer exactly that version's (its tag, kept for it); otherwise it
      // goes out with the digest of its own bytes and is not kept.
      if (tag !== null && (await readVersion()) === version) {
        rendered.etag = tag;
        responseCache!.set(key!, rendered);
      }
      sendRendered(ctx, rendered, principal);
      return;
    }
    if (!idempotencyKey) {
      writeResult(ctx, await run());
      return;
    }
    const scope = `${idempotencyOwner(principal, clientIp(ctx))}:${def.method.toUpperCase()} ${ctx.path}`;
    const { response, replayed } = await runIdempotent(
      deps.db,
      scope,
      idempotencyKey,
      requestHash(body ?? null),
      async () => {
        const written = writeResult(ctx, await run());
        return written ?? { status: ctx.status, body: null };
      },
    );
    if (replayed) {
      // The spec answers a replayed create with 200 and the original record.
      ctx.status = response.status === 201 ? 200 : response.status;
      const original = response.body;
      // An enveloped body names this request's id (as X-Request-ID does); raw bodies replay as stored.
      ctx.body =
        original && typeof original === 'object' && !Array.isArray(original) && 'request_id' in original
          ? { ...original, request_id: ctx.state.requestId }
          : original;
      ctx.set('Idempotent-Replayed', 'true');
    }
  };
}

/** A page answer written directly (webSession routes answer people, not the JSON envelope). */
function writePage(ctx: Koa.Context, status: number, page: RenderedPage): void {
  writeResult(ctx, htmlPage(page, status));
}

/** The form as a plain object for the route's schema: one value → a string, several → an array; files under `_files`. */
function formObject(form: ParsedForm): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, values] of Object.entries(form.fields))
    out[name] = values.length === 1 ? values[0] : values;
  out._files = form.files;
  return out;
}

/**
 * Pages and forms of a person signed in on the web: session cookie → rate limit → signed out?
 * redirect to /login → (POST) form body, same Origin and the session's CSRF token → params and
 * form schema → handler. Every refusal is a page; a refused form changes nothing.
 */
function webSessionPipeline(def: AnyRouteDef, deps: AppDeps): Koa.Middleware {
  return async (ctx) => {
    ctx.state.operationId = def.operationId;
    const session = await currentWebSession(ctx, deps);
    const principal: Principal = session
      ? { kind: 'user', userId: session.userId, role: session.role, name: session.name }
      : { kind: 'anonymous' };
    await applyRateLimit(
      ctx,
      deps,
      session ? def.rateLimit : 'anonymous',
      rateLimitSubject(principal, clientIp(ctx)),
    );
    const account = {
      signedIn: session ? { name: session.name ?? session.subject, csrfToken: session.csrfToken } : null,
    };
    if (!session) {
      // A form sent while signed out keeps what was typed, through the sign-in (web-session-http.ts).
      const stashed =
        def.method !== 'get' && !def.whenSignedOut
          ? await stashSignedOutForm(ctx, deps, def.largeBody ? LARGE_FORM_BODY_LIMIT_BYTES : undefined)
          : null;
      writeResult(ctx, {
        redirect: stashed ?? def.whenSignedOut ?? signInRedirect(ctx, deps),
        status: def.method === 'get' ? 302 : 303,
      });
      return;
    }
    ctx.state.principal = principal;
    const back = {
      href: def.method === 'get' ? '/me' : (sameOriginReferer(ctx, deps) ?? '/me'),
      label: 'Back',
    };
    /** One convention for every refusal of a signed-in page: the numbered error page. */
    const refuse = (status: number, detail: string, words: { title?: string; text?: string } = {}) =>
      writePage(
        ctx,
        status,
        renderErrorPage({ status, ...words, detail, requestId: String(ctx.state.requestId), back, account }),
      );
    const formRefused = { title: 'Form not accepted', text: 'Nothing was changed.' };
    if (def.operatorsOnly && !isAdmin(principal)) {
      refuse(403, "The operators' console is for operators only.");
      return;
    }

    let form: ParsedForm | null = null;
    if (def.method !== 'get') {
      try {
        form = await readFormBody(ctx, def.largeBody ? LARGE_FORM_BODY_LIMIT_BYTES : undefined);
      } catch (err) {
        if (!(err instanceof FormBodyError)) throw err;
        refuse(err.status, err.message, formRefused);
        return;
      }
      const refusal = csrfRefusal(ctx, deps, formValue(form, '_csrf'));
      if (refusal) {
        refuse(403, refusal, { title: 'Form refused', text: 'Nothing was changed.' });
        return;
      }
    }

    const params = def.params?.safeParse(ctx.params);
    if (params && !params.success) {
      refuse(404, 'This address names nothing that can exist.');
      return;
    }
    const query = def.query?.safeParse(ctx.query);
    if (query && !query.success) {
      refuse(400, describeZodIssues(query.error.issues, 'query'));
      return;
    }
    let body: unknown = undefined;
    if (def.body && form) {
      const raw = formObject(form);
      const unstorable = unstorableString(raw);
      const parsed = unstorable ? null : def.body.safeParse(raw);
      if (!parsed || !parsed.success) {
        const issues = unstorable ? [unstorable] : parsed!.error!.issues;
        refuse(400, describeZodIssues(issues), formRefused);
        return;
      }
      body = parsed.data;
    }

    try {
      writeResult(
        ctx,
        await def.handler({
          params: params?.data,
          query: query?.data,
          body,
          principal,
          deps,
          requestId: ctx.state.requestId,
          idempotencyKey: null,
          ctx,
          webSession: session,
          form,
        }),
      );
    } catch (err) {
      if (!(err instanceof ServiceError) || err instanceof ApiError) throw err;
      const status = httpStatusOf(err);
      if (status >= 500) throw err;
      refuse(status, err.message, def.method !== 'get' && status === 400 ? formRefused : {});
    }
  };
}

function sameOriginReferer(ctx: Koa.Context, deps: AppDeps): string | null {
  try {
    const url = new URL(ctx.get('referer'));
    return url.origin === siteOrigin(ctx, deps.config) ? url.pathname + url.search : null;
  } catch {
    return null;
  }
}
