import { createRemoteJWKSet, jwtVerify, SignJWT, type JWTVerifyGetKey } from 'jose';
import { z } from 'zod';
import type { Config } from '../config';

export const sessionClaimsSchema = z.object({
  sub: z.string().min(1).max(255),
  name: z.string().max(200).optional(),
  role: z.enum(['user', 'admin']).optional(),
});
export type SessionClaims = z.infer<typeof sessionClaimsSchema>;

export interface SessionJwtVerifier {
  verify(token: string): Promise<SessionClaims>;
}

/**
 * HS256 with a shared secret (dev, tests), or an identity provider's JWKS (production).
 * The accepted algorithms are pinned, so `alg: none` and HS/RS confusion are refused.
 */
export function createSessionJwtVerifier(config: Pick<Config, 'AUTH_JWT_SECRET' | 'AUTH_JWKS_URL' | 'AUTH_JWT_ISSUER' | 'AUTH_JWT_AUDIENCE'>): SessionJwtVerifier {
  const common = { issuer: config.AUTH_JWT_ISSUER, audience: config.AUTH_JWT_AUDIENCE, requiredClaims: ['exp', 'sub'] };
  if (config.AUTH_JWKS_URL) {
    const jwks: JWTVerifyGetKey = createRemoteJWKSet(new URL(config.AUTH_JWKS_URL));
    return {
      async verify(token) {
        const { payload } = await jwtVerify(token, jwks, { ...common, algorithms: ['RS256', 'ES256', 'PS256', 'EdDSA'] });
        return sessionClaimsSchema.parse(payload);
      },
    };
  }
  const key = new TextEncoder().encode(config.AUTH_JWT_SECRET);
  return {
    async verify(token) {
      const { payload } = await jwtVerify(token, key, { ...common, algorithms: ['HS256'] });
      return sessionClaimsSchema.parse(payload);
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
