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

/** How long a person may take at the provider before the sign-in must start again. */
export const SIGN_IN_TTL_SECONDS = 600;
const SIGN_IN_ATTEMPT_PREFIX = 'ccs_si_';

type Discovered = OpenIdClient.Configuration;

export interface SignIn {
  /** 'off': no provider configured (production without AUTH_OIDC_*): /login says so. */
  readonly mode: 'off' | 'oidc' | 'embedded';
  /** The provider's authorization URL to send the browser to, and the secret of the attempt's cookie. */
  begin(origin: string, returnTo: unknown): Promise<{ authorizationUrl: string; attemptSecret: string }>;
  /** Finishes at the callback: checks state, nonce and PKCE, then starts a new session. */
  finish(
    origin: string,
    callbackUrl: string,
    attemptSecret: string | undefined,
  ): Promise<{ secret: string; session: WebSession; returnTo: string }>;
}

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
    async begin(origin, returnTo) {
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
      });
      return { authorizationUrl: url.href, attemptSecret };
    },

    async finish(origin, callbackUrl, attemptSecret) {
      if (!attemptSecret?.startsWith(SIGN_IN_ATTEMPT_PREFIX))
        throw signInFailed('this browser did not start a sign-in here (or it took longer than 10 minutes)');
      const attempt = await takeWebSignIn(db, sha256Hex(attemptSecret));
      if (!attempt) throw signInFailed('the sign-in expired or was already used; start again');
      let claims: Record<string, unknown>;
      try {
        const config = await configuration(origin);
        const tokens = await oidc().authorizationCodeGrant(config, new URL(callbackUrl), {
          pkceCodeVerifier: attempt.code_verifier,
          expectedState: attempt.state,
          expectedNonce: attempt.nonce,
          idTokenExpected: true,
        });
        claims = { ...(tokens.claims() ?? {}) };
      } catch (err) {
        if (err instanceof ServiceError) throw err;
        logger.warn({ err }, 'sign-in: the callback was refused');
        if (isNetworkFailure(err)) throw providerUnavailable();
        const e = err as { error?: string; message?: string };
        throw signInFailed(e.error ?? e.message ?? 'the provider refused it');
      }
      const subject = typeof claims.sub === 'string' ? claims.sub : '';
      if (subject.length === 0 || subject.length > 255)
        throw signInFailed('the provider named no usable subject');
      const name =
        typeof claims.name === 'string'
          ? claims.name.slice(0, 200)
          : typeof claims.preferred_username === 'string'
            ? claims.preferred_username.slice(0, 200)
            : null;
      // Who is an operator: the same decision as for session JWTs (src/auth/jwt.ts).
      const role = operatorRole(claims, config);
      const started = await startWebSession(db, config, { subject, name, role });
      return { ...started, returnTo: attempt.return_to };
    },
  };
}
