import http from 'node:http';
import https from 'node:https';
import { Socket } from 'node:net';
import { createRemoteJWKSet, errors, jwtVerify, SignJWT, type JWTVerifyGetKey } from 'jose';
import { z } from 'zod';
import type { Config } from '../config';
import { sanitizeText } from '../lib/storable-text';

export const sessionClaimsSchema = z.object({
  // A subject is an identity: one PostgreSQL cannot store (NUL, a lone surrogate) is refused, not altered.
  sub: z
    .string()
    .min(1)
    .max(255)
    .refine((sub) => !sanitizeText(sub).replaced, 'a subject that cannot be stored'),
  name: z.string().max(200).optional(),
  role: z.enum(['user', 'admin']).optional(),
});
export type SessionClaims = z.infer<typeof sessionClaimsSchema>;

type OperatorSettings = Partial<
  Pick<Config, 'AUTH_OPERATOR_SUBJECTS' | 'AUTH_OPERATOR_CLAIM' | 'AUTH_TRUST_ROLE_CLAIM'>
>;

/**
 * Who is an operator is the server's decision, not the token's: a subject listed in
 * AUTH_OPERATOR_SUBJECTS, or a token carrying the namespaced claim the operator named in
 * AUTH_OPERATOR_CLAIM (`claim=value`). Any identity provider account can carry a plain `role`
 * claim, so it counts only with AUTH_TRUST_ROLE_CLAIM (dev CLI and tests; refused in production).
 */
export function operatorRole(payload: Record<string, unknown>, settings: OperatorSettings): 'user' | 'admin' {
  if (typeof payload.sub === 'string' && settings.AUTH_OPERATOR_SUBJECTS?.includes(payload.sub))
    return 'admin';
  if (settings.AUTH_OPERATOR_CLAIM) {
    const split = settings.AUTH_OPERATOR_CLAIM.lastIndexOf('=');
    const claim = payload[settings.AUTH_OPERATOR_CLAIM.slice(0, split)];
    const wanted = settings.AUTH_OPERATOR_CLAIM.slice(split + 1);
    if (claim === wanted || (Array.isArray(claim) && claim.includes(wanted))) return 'admin';
  }
  if (settings.AUTH_TRUST_ROLE_CLAIM && payload.role === 'admin') return 'admin';
  return 'user';
}

export interface SessionJwtVerifier {
  verify(token: string): Promise<SessionClaims>;
}

/**
 * The identity provider's keys could not be fetched (connection refused or reset, timeout,
 * non-200, a body that is not a JWKS). The token was never judged: the caller gets 503 with
 * Retry-After, not 401 (docs/decisions/security.md).
 */
export class IdentityProviderUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`identity provider keys unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = 'IdentityProviderUnavailableError';
  }
}

/**
 * Whether an error thrown while resolving a key is the JWKS fetch failing, as opposed to a verdict
 * on the token. jose reports a fetch as: JWKSTimeout; a plain JOSEError ("Expected 200 OK…",
 * "Failed to parse … as JSON"); JWKSInvalid (the body is not a JWKS); or the socket's own error
 * (ECONNREFUSED, ECONNRESET…, not a JOSEError). Verdicts are JOSEError subclasses such as
 * JWKSNoMatchingKey, JWKSMultipleMatchingKeys, JOSENotSupported: they stay 401.
 */
export function isJwksFetchFailure(err: unknown): boolean {
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid) return true;
  if (err instanceof errors.JOSEError) return err.constructor === errors.JOSEError;
  return true;
}

/**
 * jose times out a JWKS request only until the response headers arrive; a provider that sends
 * headers and then stalls would hang the fetch, and jose would hand every later request the same
 * pending promise. This agent's sockets are destroyed after `idleMs` of silence at any stage, so
 * a stalled fetch fails (503) and the next request fetches afresh.
 */
function stallGuardAgent(url: URL, idleMs: number): http.Agent {
  const agent = url.protocol === 'https:' ? new https.Agent() : new http.Agent();
  const create = agent.createConnection.bind(agent);
  agent.createConnection = (options, callback) => {
    const socket = create(options, callback);
    // destroy() without an error: the request then fails as "socket hang up" / "aborted" through
    // the listeners jose has at that moment (an error event after jose stopped listening to the
    // request, once the response began, would be an unhandled 'error' event).
    if (socket instanceof Socket) socket.setTimeout(idleMs, () => socket.destroy());
    return socket;
  };
  return agent;
}

/**
 * HS256 with a shared secret (dev, tests), or an identity provider's JWKS (production).
 * The accepted algorithms are pinned, so `alg: none` and HS/RS confusion are refused (before any
 * key is fetched). With a JWKS, a failure to fetch it throws IdentityProviderUnavailableError.
 */
export function createSessionJwtVerifier(
  config: Pick<Config, 'AUTH_JWT_SECRET' | 'AUTH_JWKS_URL' | 'AUTH_JWT_ISSUER' | 'AUTH_JWT_AUDIENCE'> &
    Partial<Pick<Config, 'AUTH_JWKS_TIMEOUT_MS'>> &
    OperatorSettings,
): SessionJwtVerifier {
  const common = {
    issuer: config.AUTH_JWT_ISSUER,
    audience: config.AUTH_JWT_AUDIENCE,
    requiredClaims: ['exp', 'sub'],
  };
  // Where the role claim is trusted it must be one we know (a malformed one refuses the token);
  // elsewhere it belongs to the identity provider and is ignored.
  const shape = config.AUTH_TRUST_ROLE_CLAIM ? sessionClaimsSchema : sessionClaimsSchema.omit({ role: true });
  const claimsOf = (payload: Record<string, unknown>): SessionClaims => ({
    ...shape.parse(payload),
    role: operatorRole(payload, config),
  });
  if (config.AUTH_JWKS_URL) {
    const url = new URL(config.AUTH_JWKS_URL);
    const timeoutMs = config.AUTH_JWKS_TIMEOUT_MS ?? 5_000;
    const remote = createRemoteJWKSet(url, {
      timeoutDuration: timeoutMs,
      agent: stallGuardAgent(url, timeoutMs),
    });
    const jwks: JWTVerifyGetKey = async (header, token) => {
      try {
        return await remote(header, token);
      } catch (err) {
        throw isJwksFetchFailure(err) ? new IdentityProviderUnavailableError(err) : err;
      }
    };
    return {
      async verify(token) {
        const { payload } = await jwtVerify(token, jwks, {
          ...common,
          algorithms: ['RS256', 'ES256', 'PS256', 'EdDSA'],
        });
        return claimsOf(payload);
      },
    };
  }
  const key = new TextEncoder().encode(config.AUTH_JWT_SECRET);
  return {
    async verify(token) {
      const { payload } = await jwtVerify(token, key, { ...common, algorithms: ['HS256'] });
      return claimsOf(payload);
    },
  };
}

/** Mints an HS256 session JWT (dev CLI and tests). */
export async function mintSessionJwt(
  secret: string,
  claims: SessionClaims,
  expiresIn: string | number = '12h',
  extra: { issuer?: string; audience?: string } = {},
): Promise<string> {
  let jwt = new SignJWT({ name: claims.name, role: claims.role ?? 'user' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuedAt()
    .setExpirationTime(expiresIn);
  if (extra.issuer) jwt = jwt.setIssuer(extra.issuer);
  if (extra.audience) jwt = jwt.setAudience(extra.audience);
  return jwt.sign(new TextEncoder().encode(secret));
}
