/**
 * The web session over HTTP: its cookie, the sign-in attempt's cookie, the origin forms are
 * checked against, and the form pipeline of signed-in pages (CSRF, then the form's schema).
 * The cookie is read only here, for page routes: it never authenticates /api/v1.
 */
import type Koa from 'koa';
import type { Config } from '../config';
import { csrfTokenMatches, formSubjectOf, fromSameOrigin, safeReturnTo } from '../domain/accounts/rules';
import { resolveWebSession, webFormKey, type WebSession } from '../domain/accounts/web-sessions';
import { SIGN_IN_TTL_SECONDS } from '../domain/accounts/sign-in';
import { FORM_STASH_TTL_SECONDS, UNSENT_FORM_PATH, stashForm } from '../domain/accounts/form-stash';
import { FormBodyError, readFormBody } from './form-body';
import type { AppDeps } from './deps';

/** `__Host-`: Secure, Path=/, no Domain, so no other host or path can set or shadow it (production). */
export const sessionCookieName = (config: Pick<Config, 'NODE_ENV'>) =>
  config.NODE_ENV === 'production' ? '__Host-ccs_session' : 'ccs_session';
export const signInCookieName = (config: Pick<Config, 'NODE_ENV'>) =>
  config.NODE_ENV === 'production' ? '__Host-ccs_signin' : 'ccs_signin';

/**
 * One Set-Cookie header value. Written by hand rather than with ctx.cookies.set, which refuses a
 * Secure cookie on a plain-http hop (TLS usually ends at the proxy in front of the service).
 */
function cookieHeader(
  config: Pick<Config, 'NODE_ENV'>,
  name: string,
  value: string,
  maxAgeSeconds?: number,
): string {
  const parts = [`${name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (maxAgeSeconds !== undefined) parts.push(`Max-Age=${maxAgeSeconds}`);
  if (config.NODE_ENV === 'production') parts.push('Secure');
  return parts.join('; ');
}

function appendCookie(ctx: Koa.Context, header: string): void {
  ctx.append('Set-Cookie', header);
}

/** The session cookie lives as long as the session may (the server decides when it ends). */
export function setSessionCookie(ctx: Koa.Context, config: Config, secret: string): void {
  appendCookie(
    ctx,
    cookieHeader(config, sessionCookieName(config), secret, config.WEB_SESSION_ABSOLUTE_HOURS * 3600),
  );
}
export function clearSessionCookie(ctx: Koa.Context, config: Config): void {
  appendCookie(ctx, cookieHeader(config, sessionCookieName(config), '', 0));
}
export function setSignInCookie(ctx: Koa.Context, config: Config, secret: string): void {
  appendCookie(ctx, cookieHeader(config, signInCookieName(config), secret, SIGN_IN_TTL_SECONDS));
}
export function clearSignInCookie(ctx: Koa.Context, config: Config): void {
  appendCookie(ctx, cookieHeader(config, signInCookieName(config), '', 0));
}

/**
 * "Ask who is there at the next sign-in": set at sign-out when the provider offers no logout of
 * its own, so the next /login sends `prompt=login` (switching accounts on a shared machine).
 */
export const promptLoginCookieName = (config: Pick<Config, 'NODE_ENV'>) =>
  config.NODE_ENV === 'production' ? '__Host-ccs_prompt_login' : 'ccs_prompt_login';
/** How long the mark lasts: a later sign-in clears it anyway. */
const PROMPT_LOGIN_SECONDS = 30 * 24 * 3600;
export function setPromptLoginCookie(ctx: Koa.Context, config: Config): void {
  appendCookie(ctx, cookieHeader(config, promptLoginCookieName(config), '1', PROMPT_LOGIN_SECONDS));
}
export function clearPromptLoginCookie(ctx: Koa.Context, config: Config): void {
  appendCookie(ctx, cookieHeader(config, promptLoginCookieName(config), '', 0));
}
export const readPromptLogin = (ctx: Koa.Context, config: Config) =>
  ctx.cookies.get(promptLoginCookieName(config)) === '1';

export const readSessionSecret = (ctx: Koa.Context, config: Config) =>
  ctx.cookies.get(sessionCookieName(config)) || undefined;
export const readSignInSecret = (ctx: Koa.Context, config: Config) =>
  ctx.cookies.get(signInCookieName(config)) || undefined;

/** This site's origin: PUBLIC_BASE_URL's when set (behind a proxy), else the request's. */
export function siteOrigin(ctx: Koa.Context, config: Pick<Config, 'PUBLIC_BASE_URL'>): string {
  return config.PUBLIC_BASE_URL ? new URL(config.PUBLIC_BASE_URL).origin : ctx.origin;
}

/** The session the request's cookie names, when it is live. */
export async function currentWebSession(ctx: Koa.Context, deps: AppDeps): Promise<WebSession | null> {
  if (ctx.state.webSession !== undefined) return ctx.state.webSession as WebSession | null;
  const session = await resolveWebSession(deps.db, deps.config, readSessionSecret(ctx, deps.config));
  ctx.state.webSession = session;
  return session;
}

/** Why a state-changing form is refused (null: it may proceed). */
export function csrfRefusal(ctx: Koa.Context, deps: AppDeps, presentedToken: unknown): string | null {
  const headers = { origin: ctx.get('origin') || undefined, referer: ctx.get('referer') || undefined };
  if (!fromSameOrigin(headers, siteOrigin(ctx, deps.config)))
    return 'This form was not sent from a page of this site.';
  const secret = readSessionSecret(ctx, deps.config);
  if (!secret || !csrfTokenMatches(secret, presentedToken))
    return 'This form is out of date or was not made for your session. Reload the page and try again.';
  return null;
}

/** Where "sign in first" leads: /login, returning to this page (GET) or the page the form was on. */
export function signInRedirect(ctx: Koa.Context, deps: AppDeps): string {
  let back = ctx.method === 'GET' ? ctx.url : '/';
  if (ctx.method !== 'GET') {
    const referer = ctx.get('referer');
    try {
      const url = new URL(referer);
      if (url.origin === siteOrigin(ctx, deps.config)) back = url.pathname + url.search;
    } catch {
      /* no usable Referer: home */
    }
  }
  return `/login?return_to=${encodeURIComponent(safeReturnTo(back))}`;
}

/** The cookie naming this browser's stashed form (a form it sent while signed out). */
export const formStashCookieName = (config: Pick<Config, 'NODE_ENV'>) =>
  config.NODE_ENV === 'production' ? '__Host-ccs_unsent' : 'ccs_unsent';
export const readFormStashSecret = (ctx: Koa.Context, config: Config) =>
  ctx.cookies.get(formStashCookieName(config)) || undefined;
export function clearFormStashCookie(ctx: Koa.Context, config: Config): void {
  appendCookie(ctx, cookieHeader(config, formStashCookieName(config), '', 0));
}

/**
 * A form posted without a live session (signed out in another tab, the session ended): when it
 * comes from a page of this site, its text fields are stashed server-side and the sign-in returns
 * to /unsent, which shows them and sends them again only when the person says so. Kept only for
 * the person the form was rendered for (its `_csrf` names them, signed): a form that names nobody
 * is not kept. Answers where to send the browser (null: nothing stashed, the usual sign-in redirect).
 */
export async function stashSignedOutForm(
  ctx: Koa.Context,
  deps: AppDeps,
  limitBytes?: number,
): Promise<string | null> {
  const headers = { origin: ctx.get('origin') || undefined, referer: ctx.get('referer') || undefined };
  const origin = siteOrigin(ctx, deps.config);
  if (!fromSameOrigin(headers, origin)) return null;
  let form;
  try {
    form = await readFormBody(ctx, limitBytes);
  } catch (err) {
    if (err instanceof FormBodyError) return null;
    throw err;
  }
  const userId = formSubjectOf(form.fields._csrf?.[0], webFormKey(deps.config));
  if (!userId) return null;
  const back = signInRedirect(ctx, deps);
  const page = decodeURIComponent(back.slice(back.indexOf('=') + 1));
  const secret = await stashForm(deps.db, {
    userId,
    action: safeReturnTo(ctx.path),
    page: safeReturnTo(page),
    fields: form.fields,
    hadFiles: Object.values(form.files).some((files) => files.length > 0),
  });
  if (!secret) return null;
  appendCookie(
    ctx,
    cookieHeader(deps.config, formStashCookieName(deps.config), secret, FORM_STASH_TTL_SECONDS),
  );
  return `/login?return_to=${encodeURIComponent(UNSENT_FORM_PATH)}`;
}
