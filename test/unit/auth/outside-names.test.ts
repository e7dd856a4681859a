/**
 * Issue 37 (DESIGN, "Whatever a program writes is data": every text the service stores from
 * outside): a person's name comes from the identity provider's token. A name holding NUL or a lone
 * surrogate reached the users upsert as it was, which PostgreSQL refuses: every call with that
 * token failed (500). The name is stored through the sanitizer (U+FFFD); a subject, which is an
 * identity and cannot be altered, that PostgreSQL cannot store makes the token invalid (401).
 * On the in-memory credentials store (test/fakes/stores/credentials.ts), held to the SQL one's
 * contract (which refuses NUL, as PostgreSQL does).
 */
import type { Pool } from 'pg';
import { resolveCredentials } from '../../../src/auth/authenticate';
import { sessionClaimsSchema, type SessionJwtVerifier } from '../../../src/auth/jwt';
import { createFakeCredentialStore } from '../../fakes/stores/credentials';

function verifierFor(claims: unknown): SessionJwtVerifier {
  // The verifier's own parse, as jwt.ts applies it to a verified token's payload.
  return { verify: async () => sessionClaimsSchema.parse(claims) };
}

/** No database (a statement sent to one would throw): the store is the in-memory one. */
function depsWithStore() {
  const store = createFakeCredentialStore();
  return { store, deps: { db: undefined as unknown as Pool, stores: { credentials: store } } };
}

describe("a name from the identity provider's token", () => {
  it.each([
    ['a NUL', 'Ada\u0000Lovelace', 'Ada\uFFFDLovelace'],
    ['a lone surrogate', 'Ada \uD800', 'Ada \uFFFD'],
  ])('with %s is stored with U+FFFD in its place', async (_what, name, stored) => {
    const { store, deps } = depsWithStore();
    const outcome = await resolveCredentials(deps, verifierFor({ sub: 'person-1', name }), {
      authorization: 'Bearer header.payload.signature',
    });
    expect(outcome.ok).toBe(true);
    expect(store.users.get('person-1')?.name).toBe(stored);
    expect(outcome).toMatchObject({ principal: { kind: 'user', name: stored } });
  });

  it('a subject PostgreSQL cannot store makes the token invalid (401), nothing is written', async () => {
    for (const sub of ['a\u0000b', 'x\uDC00']) {
      const { store, deps } = depsWithStore();
      const outcome = await resolveCredentials(deps, verifierFor({ sub, name: 'Ada' }), {
        authorization: 'Bearer header.payload.signature',
      });
      expect(outcome).toMatchObject({ ok: false, reason: 'invalid or expired session token' });
      expect(store.users.size).toBe(0);
    }
  });
});
