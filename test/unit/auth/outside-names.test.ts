/**
 * Issue 37 (DESIGN, "Whatever a program writes is data": every text the service stores from
 * outside): a person's name comes from the identity provider's token. A name holding NUL or a lone
 * surrogate reached the users upsert as it was, which PostgreSQL refuses: every call with that
 * token failed (500). The name is stored through the sanitizer (U+FFFD); a subject, which is an
 * identity and cannot be altered, that PostgreSQL cannot store makes the token invalid (401).
 */
import type { Pool } from 'pg';
import { resolveCredentials } from '../../../src/auth/authenticate';
import { sessionClaimsSchema, type SessionJwtVerifier } from '../../../src/auth/jwt';
import { RecordingDb } from '../../fakes/deps';

const USER_ROW = { id: 'u-1', subject: 'person-1', name: 'x', role: 'user', created_at: new Date() };

function verifierFor(claims: unknown): SessionJwtVerifier {
  // The verifier's own parse, as jwt.ts applies it to a verified token's payload.
  return { verify: async () => sessionClaimsSchema.parse(claims) };
}

describe("a name from the identity provider's token", () => {
  it.each([
    ['a NUL', 'Ada\u0000Lovelace', 'Ada\uFFFDLovelace'],
    ['a lone surrogate', 'Ada \uD800', 'Ada \uFFFD'],
  ])('with %s is stored with U+FFFD in its place', async (_what, name, stored) => {
    const db = new RecordingDb().answer(/INSERT INTO users/, [USER_ROW]);
    const outcome = await resolveCredentials(db as unknown as Pool, verifierFor({ sub: 'person-1', name }), {
      authorization: 'Bearer header.payload.signature',
    });
    expect(outcome.ok).toBe(true);
    const upsert = db.queries.find((q) => /INSERT INTO users/.test(q.text));
    expect(upsert?.values[1]).toBe(stored);
  });

  it('a subject PostgreSQL cannot store makes the token invalid (401), nothing is written', async () => {
    for (const sub of ['a\u0000b', 'x\uDC00']) {
      const db = new RecordingDb();
      const outcome = await resolveCredentials(db as unknown as Pool, verifierFor({ sub, name: 'Ada' }), {
        authorization: 'Bearer header.payload.signature',
      });
      expect(outcome).toMatchObject({ ok: false, reason: 'invalid or expired session token' });
      expect(db.queries).toEqual([]);
    }
  });
});
