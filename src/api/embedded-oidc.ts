/**
 * The embedded OpenID provider (development and tests; production refuses it, src/config.ts):
 * `oidc-provider` mounted under /oidc on the API's own origin, with its sign-in page (the demo
 * accounts, or any name) served here. It is an ES module with its own Koa and jose majors, so it
 * runs as its own Koa application handed the raw request (docs/decisions/web.md).
 */
import { createPrivateKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Koa from 'koa';
import {
  EMBEDDED_DEMO_ACCOUNTS,
  EMBEDDED_OIDC_CLIENT_ID,
  EMBEDDED_OIDC_CLIENT_SECRET,
  EMBEDDED_OIDC_MOUNT,
  EMBEDDED_OPERATOR_SUBJECT,
  SIGN_IN_CALLBACK_PATH,
} from '../auth/embedded-oidc-client';
import { constantTimeEqual } from '../auth/secrets';
import { embeddedSubject, fromSameOrigin } from '../domain/accounts/rules';
import { loadNativeEsm, toNativeRealm } from '../lib/native-esm';
import {
  renderEmbeddedProviderSignIn,
  renderEmbeddedProviderSignOut,
  renderMessagePage,
} from './pages/accounts/sign-in-view';
import type { AppDeps } from './deps';
import { FormBodyError, formValue, readFormBody } from './form-body';
import { htmlPage } from './html-page';

/** The part of oidc-provider's Provider used here (the package ships no types). */
interface OidcProvider {
  proxy: boolean;
  callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  interactionDetails(
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<{ uid: string; prompt: { name: string } }>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    options?: { mergeWithLastSubmission?: boolean },
  ): Promise<void>;
  Grant: new (init: { clientId: string; accountId: string }) => {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  };
}
type ProviderConstructor = new (issuer: string, configuration: Record<string, unknown>) => OidcProvider;

/** Loopback origins only: the embedded provider serves a development machine (and tests' servers). */
function isLoopbackCallback(uri: string): boolean {
  try {
    const url = new URL(uri);
    return (
      url.protocol === 'http:' &&
      ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) &&
      url.pathname === SIGN_IN_CALLBACK_PATH &&
      url.search === '' &&
      url.hash === ''
    );
  } catch {
    return false;
  }
}

/** A loopback origin's home page: where the service's sign-out returns after this provider's logout. */
function isLoopbackHome(uri: string): boolean {
  try {
    const url = new URL(uri);
    return (
      url.protocol === 'http:' &&
      ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) &&
      url.pathname === '/' &&
      url.search === '' &&
      url.hash === ''
    );
  } catch {
    return false;
  }
}

/** One of our pages as the answer of the provider's own Koa context (its logout pages). */
function answerWithPage(
  ctx: { type: string; body: unknown; set(h: string, v: string): void },
  page: ReturnType<typeof renderMessagePage>,
): void {
  for (const [k, v] of Object.entries(page.headers)) ctx.set(k, v);
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = page.html.toString();
}

/** The part of the provider's context its logout pages see (the package ships no types). */
interface ProviderLogoutContext {
  type: string;
  body: unknown;
  set(h: string, v: string): void;
  redirect(url: string): void;
  status: number;
  cookies: { set(name: string, value: null, options: Record<string, unknown>): void };
  oidc: {
    client?: { clientId: string };
    entities: { IdTokenHint?: unknown };
    provider: {
      cookieName(name: string): string;
      Grant: { find(id: string): Promise<{ destroy(): Promise<void> } | undefined> };
    };
    session: {
      accountId?: string;
      state?: { postLogoutRedirectUri?: string };
      authorizations?: Record<string, { grantId?: string }>;
      destroy(): Promise<void>;
    };
  };
}

/**
 * What the provider's own confirmation does on "Yes" (its grants revoked, the session destroyed,
 * its cookie cleared, back to post_logout_redirect_uri), done without the page when the request
 * carries a valid ID token of our client: the provider checked the hint, the client and the
 * redirect before calling logoutSource. Answers false when the page must still be shown.
 */
async function endOwnSessionAtOnce(ctx: ProviderLogoutContext): Promise<boolean> {
  const { oidc } = ctx;
  const target = oidc.session.state?.postLogoutRedirectUri;
  if (oidc.client?.clientId !== EMBEDDED_OIDC_CLIENT_ID || !oidc.entities.IdTokenHint || !target)
    return false;
  for (const { grantId } of Object.values(oidc.session.authorizations ?? {})) {
    if (grantId) await (await oidc.provider.Grant.find(grantId))?.destroy();
  }
  await oidc.session.destroy();
  ctx.cookies.set(oidc.provider.cookieName('session'), null, { httpOnly: true, sameSite: 'lax' });
  ctx.status = 303;
  ctx.redirect(target);
  return true;
}

/** What every origin's provider is built from: the package and the signing key, both costly to make. */
interface ProviderMaterials {
  Provider: ProviderConstructor;
  signingKey: Record<string, unknown>;
  /** The configured key it was made from (AUTH_OIDC_EMBEDDED_KEY), or undefined when generated. */
  configuredKey: string | undefined;
}

let materials: ProviderMaterials | undefined;

/**
 * Loads oidc-provider and takes the RSA signing key, once per process, when the app is made
 * (before it listens): the configured one (AUTH_OIDC_EMBEDDED_KEY), else a generated one. Both are
 * synchronous and take a few hundred milliseconds of CPU (generating most); done on the first
 * request under /oidc, they ran inside the relying party's own discovery of this provider (the
 * same process fetching its own /oidc/.well-known, 10 s timeout): on a loaded machine /login
 * answered 503 (docs/decisions/web.md, "The embedded provider is made before the app listens").
 */
function providerMaterials(configuredKey: string | undefined): ProviderMaterials {
  if (!materials || !sameConfiguredKey(materials.configuredKey, configuredKey)) {
    const Provider =
      materials?.Provider ?? loadNativeEsm<{ default: ProviderConstructor }>('oidc-provider').default;
    const privateKey = configuredKey
      ? createPrivateKey(configuredKey)
      : generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    materials = {
      Provider,
      signingKey: privateKey.export({ format: 'jwk' }) as Record<string, unknown>,
      configuredKey,
    };
  }
  return materials;
}

/** The key is a secret: compared in constant time (test/system/security-constant-time.test.ts). */
function sameConfiguredKey(heldKey: string | undefined, wantedKey: string | undefined): boolean {
  if (heldKey === undefined || wantedKey === undefined)
    return heldKey === undefined && wantedKey === undefined;
  return constantTimeEqual(heldKey, wantedKey);
}

function buildProvider(
  issuer: string,
  origin: string,
  trustProxy: boolean,
  configuredKey: string | undefined,
): OidcProvider {
  const { Provider, signingKey } = providerMaterials(configuredKey);
  const provider = new Provider(
    issuer,
    toNativeRealm({
      clients: [
        {
          client_id: EMBEDDED_OIDC_CLIENT_ID,
          client_secret: EMBEDDED_OIDC_CLIENT_SECRET,
          redirect_uris: [origin + SIGN_IN_CALLBACK_PATH],
          post_logout_redirect_uris: [`${origin}/`],
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_basic',
        },
      ],
      jwks: {
        keys: [{ ...signingKey, use: 'sig', alg: 'RS256', kid: 'embedded' }],
      },
      cookies: { keys: [randomBytes(32).toString('base64url')] },
      pkce: { required: () => true },
      // As a standard provider does: the ID token carries `sub` (and the demo operator's role), the
      // name comes from the userinfo endpoint (the relying party reads it when the ID token has none).
      claims: { openid: ['sub', 'role'], profile: ['name'] },
      conformIdTokenClaims: true,
      features: {
        devInteractions: { enabled: false },
        // RP-initiated logout: signing out of the service ends this provider's session too.
        rpInitiatedLogout: {
          enabled: true,
          // Our own client's sign-out (its ID token as the hint) ends this provider's session at
          // once: asking again, and "No" keeping the session, signed people back in silently (issue
          // 41, item 8). Anything else (no hint, another client) still gets the confirmation page.
          async logoutSource(ctx: ProviderLogoutContext, form: string) {
            if (await endOwnSessionAtOnce(ctx)) return;
            answerWithPage(ctx, renderEmbeddedProviderSignOut({ form }));
          },
          async postLogoutSuccessSource(ctx: {
            type: string;
            body: unknown;
            set(h: string, v: string): void;
          }) {
            answerWithPage(
              ctx,
              renderMessagePage({
                title: 'Signed out',
                message: 'You are signed out of the development provider.',
              }),
            );
          },
        },
      },
      async findAccount(_ctx: unknown, sub: string) {
        const demo = EMBEDDED_DEMO_ACCOUNTS.find((a) => a.sub === sub);
        return toNativeRealm({
          accountId: sub,
          async claims() {
            return toNativeRealm({
              sub,
              name: demo?.name ?? sub,
              ...(sub === EMBEDDED_OPERATOR_SUBJECT ? { role: 'admin' } : {}),
            });
          },
        });
      },
      interactions: {
        url: (_ctx: unknown, interaction: { uid: string }) =>
          `${EMBEDDED_OIDC_MOUNT}/interaction/${interaction.uid}`,
      },
      // The service is the provider's only, first-party client: no consent screen.
      async loadExistingGrant(ctx: {
        oidc: {
          client: { clientId: string };
          session: { accountId: string; grantIdFor(clientId: string): string | undefined };
          result?: { consent?: { grantId?: string } };
          provider: { Grant: OidcProvider['Grant'] & { find(id: string): Promise<unknown> } };
        };
      }) {
        const { oidc } = ctx;
        const existing = oidc.result?.consent?.grantId ?? oidc.session.grantIdFor(oidc.client.clientId);
        if (existing) return oidc.provider.Grant.find(existing);
        const grant = new oidc.provider.Grant({
          clientId: oidc.client.clientId,
          accountId: oidc.session.accountId,
        });
        grant.addOIDCScope('openid profile');
        await grant.save();
        return grant;
      },
      ttl: {
        Interaction: 600,
        Session: 3600,
        Grant: 3600,
        AuthorizationCode: 60,
        AccessToken: 600,
        IdToken: 600,
      },
    }),
  );
  // Other loopback ports may use this provider too (a second test server acting as production).
  const Client = (
    provider as unknown as { Client: { prototype: { redirectUriAllowed(uri: string): boolean } } }
  ).Client;
  const allowed = Client.prototype.redirectUriAllowed;
  Client.prototype.redirectUriAllowed = function (this: unknown, uri: string) {
    return allowed.call(this, uri) || isLoopbackCallback(uri);
  };
  const logoutPrototype = Client.prototype as unknown as {
    postLogoutRedirectUriAllowed(uri: string): boolean;
  };
  const logoutAllowed = logoutPrototype.postLogoutRedirectUriAllowed;
  logoutPrototype.postLogoutRedirectUriAllowed = function (this: unknown, uri: string) {
    return logoutAllowed.call(this, uri) || isLoopbackHome(uri);
  };
  provider.proxy = trustProxy;
  return provider;
}

/** At most this many origins (Host headers) get a provider of their own; development serves one or two. */
const MAX_ORIGINS = 8;

/** Koa middleware answering everything under /oidc; other paths pass through. */
export function embeddedOidcProvider(deps: AppDeps): Koa.Middleware {
  // Made now, while the app is being made: never on a request's (or a discovery's) clock.
  providerMaterials(deps.config.AUTH_OIDC_EMBEDDED_KEY);
  const providers = new Map<string, OidcProvider>();
  const providerFor = (origin: string): OidcProvider | null => {
    let provider = providers.get(origin);
    if (!provider) {
      if (providers.size >= MAX_ORIGINS) return null;
      provider = buildProvider(
        `${origin}${EMBEDDED_OIDC_MOUNT}`,
        origin,
        deps.config.TRUST_PROXY,
        deps.config.AUTH_OIDC_EMBEDDED_KEY,
      );
      providers.set(origin, provider);
    }
    return provider;
  };
  const interactionPath = new RegExp(`^${EMBEDDED_OIDC_MOUNT}/interaction/([A-Za-z0-9_-]{1,64})(/login)?$`);

  return async (ctx, next) => {
    if (ctx.path !== EMBEDDED_OIDC_MOUNT && !ctx.path.startsWith(`${EMBEDDED_OIDC_MOUNT}/`)) return next();
    const origin = deps.config.PUBLIC_BASE_URL?.replace(/\/$/, '') ?? ctx.origin;
    const provider = providerFor(origin);
    if (!provider) {
      ctx.status = 400;
      ctx.body = 'too many origins for the embedded provider';
      return;
    }
    const interaction = interactionPath.exec(ctx.path);
    if (interaction)
      return answerInteraction(ctx, provider, origin, interaction[1], interaction[2] === '/login');

    // Hand the raw request to the provider's own Koa application, as mounted under /oidc.
    const req = ctx.req as IncomingMessage & { originalUrl?: string };
    req.originalUrl = req.url;
    req.url = req.url!.slice(EMBEDDED_OIDC_MOUNT.length) || '/';
    ctx.respond = false;
    await provider.callback()(req, ctx.res);
  };
}

async function answerInteraction(
  ctx: Koa.Context,
  provider: OidcProvider,
  origin: string,
  uid: string,
  isLogin: boolean,
): Promise<void> {
  const write = (page: ReturnType<typeof renderMessagePage>, status = 200) => {
    const result = htmlPage(page, status);
    if ('raw' in result) {
      ctx.status = status;
      for (const [k, v] of Object.entries(result.headers ?? {})) ctx.set(k, v);
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = result.raw;
    }
  };
  let details: { uid: string };
  try {
    details = await provider.interactionDetails(ctx.req, ctx.res);
  } catch {
    write(
      renderMessagePage({
        title: 'Sign-in expired',
        message: 'This sign-in page is no longer valid (it expired, or was opened in another browser).',
        next: { href: '/login', label: 'Start signing in again' },
      }),
      400,
    );
    return;
  }
  const action = `${EMBEDDED_OIDC_MOUNT}/interaction/${details.uid}/login`;
  if (details.uid !== uid) {
    write(
      renderMessagePage({ title: 'Sign-in expired', message: 'This sign-in page is not the current one.' }),
      400,
    );
    return;
  }
  if (!isLogin) {
    if (ctx.method !== 'GET') ctx.throw(405);
    write(renderEmbeddedProviderSignIn({ action, accounts: EMBEDDED_DEMO_ACCOUNTS }));
    return;
  }
  if (ctx.method !== 'POST') ctx.throw(405);
  if (
    !fromSameOrigin(
      { origin: ctx.get('origin') || undefined, referer: ctx.get('referer') || undefined },
      origin,
    )
  ) {
    write(
      renderMessagePage({ title: 'Form refused', message: 'This form was not sent from this site.' }),
      403,
    );
    return;
  }
  let subject: string | null;
  try {
    subject = embeddedSubject(formValue(await readFormBody(ctx, 16 * 1024), 'login'));
  } catch (err) {
    if (!(err instanceof FormBodyError)) throw err;
    subject = null;
  }
  if (!subject) {
    write(
      renderEmbeddedProviderSignIn({
        action,
        accounts: EMBEDDED_DEMO_ACCOUNTS,
        error: 'Type a name of 1 to 255 characters (no control characters).',
      }),
      400,
    );
    return;
  }
  ctx.respond = false;
  await provider.interactionFinished(
    ctx.req,
    ctx.res,
    toNativeRealm({ login: { accountId: subject } }),
    toNativeRealm({ mergeWithLastSubmission: false }),
  );
}
