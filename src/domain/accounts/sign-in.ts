/**
 * Signing in with OpenID Connect: the authorization code flow with PKCE (S256), `state` and
 * `nonce`, through openid-client (docs/decisions/web.md). The provider is the configured one
 * (AUTH_OIDC_*), or in development the embedded one under /oidc on the request's own origin.
 */
import type * as OpenIdClient from 'openid-client';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import {
  EMBEDDED_OIDC_CLIENT_ID,
  EMBEDDED_OIDC_CLIENT_SECRET,
  EMBEDDED_OIDC_MOUNT,
  SIGN_IN_CALLBACK_PATH,
} from '../../auth/embedded-oidc-client';
import { operatorRole } from '../../auth/jwt';
import { generateSecret, sha256Hex } from '../../auth/secrets';
import { webSignInMode, type Config } from '../../config';
import { insertWebSignIn, takeWebSignIn } from '../../db/queries/web-sign-ins';
import { ServiceError } from '../../errors';
import { loadNativeEsm } from '../../lib/native-esm';
import { safeReturnTo } from './rules';
import { startWebSession, type WebSession } from './web-sessions';
import { sanitizeText } from '../../lib/storable-text';

/** How long a person may take at the provider before the sign-in must start again. */
export const SIGN_IN_TTL_SECONDS = 600;
const SIGN_IN_ATTEMPT_PREFIX = 'ccs_si_';

type Discovered = OpenIdClient.Configuration;

export interface SignIn {
  /** 'off': no provider configured (production without AUTH_OIDC_*): /login says so. */
  readonly mode: 'off' | 'oidc' | 'embedded';
  /**
   * The provider's authorization URL to send the browser to, and the secret of the attempt's
   * cookie. `forceLogin`: the provider must ask who is there again (`prompt=login`), after a
   * sign-out from a provider that offers no logout of its own.
   */
  begin(
    origin: string,
    returnTo: unknown,
    options?: { forceLogin?: boolean },
  ): Promise<{ authorizationUrl: string; attemptSecret: string }>;
  /** Finishes at the callback: checks state, nonce and PKCE, then starts a new session. */
  finish(
    origin: string,
    callbackUrl: string,
    attemptSecret: string | undefined,
  ): Promise<{ secret: string; session: WebSession; returnTo: string }>;
  /**
   * Where to send the browser so that the provider ends its own session too (RP-initiated logout,
   * back to `origin`/ afterwards), or null when the provider offers no end_session_endpoint (or
   * cannot be reached now): then the next sign-in asks again (`prompt=login`).
   */
  endSessionUrl(origin: string, idToken: string | null): Promise<string | null>;
}

/** Where the provider sends the browser back after its logout. */
export const POST_LOGOUT_PATH = '/';

/** A sign-in that did not complete; `unavailable`: the provider could not be reached. */
const signInFailed = (message: string) =>
  new ServiceError('UNAUTHORIZED', `sign-in did not complete: ${message}`);
const providerUnavailable = () =>
  new ServiceError(
    'SERVICE_UNAVAILABLE',
    'the identity provider cannot be reached right now; try again shortly',
  );

/** Errors from openid-client come from another realm under jest: judged by shape, not instanceof. */
function isNetworkFailure(err: unknown): boolean {
  const e = err as { name?: string; code?: string; cause?: { code?: string } } | null;
  return (
    e?.name === 'TypeError' ||
    e?.code === 'OAUTH_TIMEOUT' ||
    /^E(CONN|TIMEDOUT|AI_AGAIN|NOTFOUND)/.test(e?.cause?.code ?? e?.code ?? '')
  );
}

/** What the provider answered when it refused (its token endpoint): status and body, for the log and a summary. */
async function providerAnswer(
  err: unknown,
): Promise<{ status: number; body: string; summary: string } | null> {
  const e = err as {
    status?: unknown;
    error?: unknown;
    error_description?: unknown;
    cause?: unknown;
    response?: unknown;
  } | null;
  let status = typeof e?.status === 'number' ? e.status : null;
  let body: string | null = null;
  if (e?.cause && typeof e.cause === 'object' && !(e.cause instanceof Error)) {
    const cause = e.cause as { status?: unknown; clone?: () => { text(): Promise<string> } };
    if (typeof cause.clone === 'function') {
      // A response that was not an OAuth error (an HTML 500, a proxy's page): its raw text.
      status ??= typeof cause.status === 'number' ? cause.status : null;
      body = await cause
        .clone()
        .text()
        .catch(() => null);
    } else body = JSON.stringify(e.cause);
  }
  if (status === null) return null;
  body = (body ?? '').slice(0, 2000);
  const error = typeof e?.error === 'string' ? e.error : null;
  const description = typeof e?.error_description === 'string' ? e.error_description : null;
  const said = error
    ? `${error}${description ? `: ${description}` : ''}`
    : body
        .replace(/<[^>]*>/g, ' ')
        .replace(/\s+/g, ' ')
        .trim();
  const summary = `the identity provider refused to complete it (HTTP ${status}${said ? `, ${said.slice(0, 200)}` : ''})`;
  return { status, body, summary };
}

/** A display name from claims: `name`, else `preferred_username`, else `nickname` (at most 200 characters). */
function displayNameOf(claims: Record<string, unknown> | null | undefined): string | null {
  for (const key of ['name', 'preferred_username', 'nickname']) {
    const value = claims?.[key];
    if (typeof value === 'string' && value.trim() !== '') return value.trim().slice(0, 200);
  }
  return null;
}

export function createSignIn(db: Pool, config: Config, logger: Logger): SignIn {
  const mode = webSignInMode(config);
  const discovered = new Map<string, Promise<Discovered>>();
  let library: typeof OpenIdClient | undefined;
  const oidc = () => (library ??= loadNativeEsm<typeof OpenIdClient>('openid-client'));

  /** The provider's metadata, fetched once per issuer (again after a failure). */
  function configuration(origin: string): Promise<Discovered> {
    if (mode.kind === 'off') throw new ServiceError('FORBIDDEN', 'sign-in is not configured on this service');
    const issuer = mode.kind === 'oidc' ? mode.issuer : `${origin}${EMBEDDED_OIDC_MOUNT}`;
    const clientId = mode.kind === 'oidc' ? mode.clientId : EMBEDDED_OIDC_CLIENT_ID;
    const secret = mode.kind === 'oidc' ? mode.clientSecret : EMBEDDED_OIDC_CLIENT_SECRET;
    let found = discovered.get(issuer);
    if (!found) {
      const lib = oidc();
      const url = new URL(issuer);
      // Plain http only for the embedded provider and loopback issuers (a provider in a test).
      const insecure =
        url.protocol === 'http:' &&
        (mode.kind === 'embedded' || ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname));
      found = lib.discovery(url, clientId, secret, undefined, {
        execute: insecure ? [lib.allowInsecureRequests] : [],
        timeout: 10,
      });
      discovered.set(issuer, found);
      found.catch(() => discovered.delete(issuer));
    }
    return found;
  }

  return {
    mode: mode.kind,
    async begin(origin, returnTo, options = {}) {
      let config: Discovered;
      try {
        config = await configuration(origin);
      } catch (err) {
        if (err instanceof ServiceError) throw err;
        logger.warn({ err }, 'sign-in: the identity provider could not be discovered');
        throw providerUnavailable();
      }
      const lib = oidc();
      const codeVerifier = lib.randomPKCECodeVerifier();
      const state = lib.randomState();
      const nonce = lib.randomNonce();
      const attemptSecret = generateSecret(SIGN_IN_ATTEMPT_PREFIX);
      await insertWebSignIn(db, {
        secretHash: sha256Hex(attemptSecret),
        state,
        nonce,
        codeVerifier,
        returnTo: safeReturnTo(returnTo),
        ttlSeconds: SIGN_IN_TTL_SECONDS,
      });
      const url = lib.buildAuthorizationUrl(config, {
        redirect_uri: origin + SIGN_IN_CALLBACK_PATH,
        scope: 'openid profile',
        response_type: 'code',
        code_challenge: await lib.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state,
        nonce,
        ...(options.forceLogin ? { prompt: 'login' } : {}),
      });
      return { authorizationUrl: url.href, attemptSecret };
    },

    async finish(origin, callbackUrl, attemptSecret) {
      if (!attemptSecret?.startsWith(SIGN_IN_ATTEMPT_PREFIX))
        throw signInFailed('this browser did not start a sign-in here (or it took longer than 10 minutes)');
      const attempt = await takeWebSignIn(db, sha256Hex(attemptSecret));
      if (!attempt) throw signInFailed('the sign-in expired or was already used; start again');
      let claims: Record<string, unknown>;
      let provider: Discovered;
      let tokens: Awaited<ReturnType<typeof OpenIdClient.authorizationCodeGrant>>;
      try {
        provider = await configuration(origin);
        tokens = await oidc().authorizationCodeGrant(provider, new URL(callbackUrl), {
          pkceCodeVerifier: attempt.code_verifier,
          expectedState: attempt.state,
          expectedNonce: attempt.nonce,
          idTokenExpected: true,
        });
        claims = { ...(tokens.claims() ?? {}) };
      } catch (err) {
        if (err instanceof ServiceError) throw err;
        const answer = await providerAnswer(err);
        if (answer) {
          // The provider's own words (status and body) go to the log; the page gets a summary.
          logger.warn(
            { err, provider_status: answer.status, provider_body: answer.body },
            'sign-in: the identity provider refused the authorization code at its token endpoint',
          );
          throw signInFailed(answer.summary);
        }
        logger.warn({ err }, 'sign-in: the callback was refused');
        if (isNetworkFailure(err)) throw providerUnavailable();
        const e = err as { error?: string; message?: string };
        throw signInFailed(e.error ?? e.message ?? 'the provider refused it');
      }
      const subject = typeof claims.sub === 'string' ? claims.sub : '';
      if (subject.length === 0 || subject.length > 255 || sanitizeText(subject).replaced)
        throw signInFailed('the provider named no usable subject');
      // A standard provider may put no name in the ID token: its userinfo endpoint has it.
      let name = displayNameOf(claims);
      if (name === null && tokens.access_token) {
        try {
          name = displayNameOf(await oidc().fetchUserInfo(provider, tokens.access_token, subject));
        } catch (err) {
          const answer = await providerAnswer(err);
          logger.warn(
            { err, provider_status: answer?.status, provider_body: answer?.body },
            'sign-in: the userinfo endpoint did not answer a name; signing in without one',
          );
        }
      }
      // Who is an operator: the same decision as for session JWTs (src/auth/jwt.ts): the ID token's claims.
      const role = operatorRole(claims, config);
      const started = await startWebSession(
        db,
        config,
        { subject, name, role },
        { idToken: tokens.id_token ?? null },
      );
      return { ...started, returnTo: attempt.return_to };
    },

    async endSessionUrl(origin, idToken) {
      if (mode.kind === 'off') return null;
      let provider: Discovered;
      try {
        provider = await configuration(origin);
      } catch (err) {
        logger.warn(
          { err },
          'sign-out: the identity provider could not be discovered; the next sign-in asks again',
        );
        return null;
      }
      if (!provider.serverMetadata().end_session_endpoint) return null;
      const clientId = mode.kind === 'oidc' ? mode.clientId : EMBEDDED_OIDC_CLIENT_ID;
      const parameters: Record<string, string> = {
        client_id: clientId,
        post_logout_redirect_uri: origin + POST_LOGOUT_PATH,
      };
      if (idToken) parameters.id_token_hint = idToken;
      return oidc().buildEndSessionUrl(provider, parameters).href;
    },
  };
}
