/**
 * People signing in (issue 21): the pure rules (return_to, session expiry, CSRF, same origin) and
 * the sign-in settings production refuses, each with a one-line reason.
 */
import { loadConfig, webSignInMode } from '../../../../src/config';
import { mayReadStashedForm } from '../../../../src/domain/accounts/policy';
import {
  csrfTokenFor,
  csrfTokenMatches,
  embeddedSubject,
  formSubjectOf,
  formTokenFor,
  fromSameOrigin,
  safeReturnTo,
  sessionVerdict,
} from '../../../../src/domain/accounts/rules';

const PRODUCTION: NodeJS.ProcessEnv = {
  NODE_ENV: 'production',
  AUTH_JWT_SECRET: 'a-production-secret-0123456789',
  WEBHOOK_SECRET_KEY: 'a-production-webhook-key-0123456789',
  DATABASE_URL: 'postgres://svc:s3cret@db.example.com:5432/challenges',
  METRICS_TOKEN: 'a-metrics-token-0123456789',
};
const OIDC = {
  AUTH_OIDC_ISSUER: 'https://id.example.com/realms/main',
  AUTH_OIDC_CLIENT_ID: 'challenges',
  AUTH_OIDC_CLIENT_SECRET: 'a-client-secret',
  PUBLIC_BASE_URL: 'https://challenges.example.com',
};

function refusal(env: NodeJS.ProcessEnv): string {
  try {
    loadConfig(env);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the configuration was accepted');
}

describe('sign-in settings', () => {
  test('production: none → sign-in off; all three → that provider', () => {
    expect(webSignInMode(loadConfig(PRODUCTION))).toEqual({ kind: 'off' });
    expect(webSignInMode(loadConfig({ ...PRODUCTION, ...OIDC }))).toEqual({
      kind: 'oidc',
      issuer: OIDC.AUTH_OIDC_ISSUER,
      clientId: 'challenges',
      clientSecret: 'a-client-secret',
    });
  });

  test('development: the embedded provider by default; a configured provider wins', () => {
    expect(webSignInMode(loadConfig({ NODE_ENV: 'development' }))).toEqual({ kind: 'embedded' });
    expect(webSignInMode(loadConfig({ NODE_ENV: 'test', AUTH_OIDC_EMBEDDED: '0' }))).toEqual({ kind: 'off' });
    expect(webSignInMode(loadConfig({ NODE_ENV: 'development', ...OIDC })).kind).toBe('oidc');
  });

  test.each([
    [
      { AUTH_OIDC_EMBEDDED: '1' },
      /AUTH_OIDC_EMBEDDED: the embedded OpenID provider lets anyone sign in as any name; refused in production/,
    ],
    [
      { AUTH_OIDC_ISSUER: OIDC.AUTH_OIDC_ISSUER },
      /needs AUTH_OIDC_ISSUER, AUTH_OIDC_CLIENT_ID and AUTH_OIDC_CLIENT_SECRET together \(only AUTH_OIDC_ISSUER set\)/,
    ],
    [{ ...OIDC, AUTH_OIDC_CLIENT_SECRET: undefined }, /only AUTH_OIDC_ISSUER, AUTH_OIDC_CLIENT_ID set/],
    [
      { ...OIDC, PUBLIC_BASE_URL: undefined },
      /PUBLIC_BASE_URL: web sign-in needs PUBLIC_BASE_URL in production/,
    ],
    [
      { ...OIDC, AUTH_JWT_ISSUER: 'https://other.example.com/' },
      /AUTH_OIDC_ISSUER and AUTH_JWT_ISSUER differ/,
    ],
    [{ ...OIDC, AUTH_OIDC_EMBEDDED: '1' }, /name two providers/],
  ])('production refuses %o', (overrides, reason) => {
    const message = refusal({ ...PRODUCTION, ...overrides });
    expect(message).toMatch(reason);
    expect(message.split('\n')).toHaveLength(1);
  });

  test('partial settings are refused in development too; matching issuers are accepted', () => {
    expect(refusal({ NODE_ENV: 'development', AUTH_OIDC_CLIENT_ID: 'x' })).toMatch(
      /only AUTH_OIDC_CLIENT_ID set/,
    );
    expect(() =>
      loadConfig({ ...PRODUCTION, ...OIDC, AUTH_JWT_ISSUER: `${OIDC.AUTH_OIDC_ISSUER}/` }),
    ).not.toThrow();
  });
});

describe('return_to', () => {
  test.each([
    ['/me', '/me'],
    ['/challenges/abc?x=1#top', '/challenges/abc?x=1#top'],
    ['https://evil.example/', '/'],
    ['//evil.example', '/'],
    ['/\\evil.example', '/'],
    ['/\t/evil.example', '/'],
    ['javascript:alert(1)', '/'],
    ['me', '/'],
    ['', '/'],
    [undefined, '/'],
    [['/me'], '/'],
    ['/' + 'a'.repeat(3000), '/'],
  ])('%j → %s', (raw, expected) => {
    expect(safeReturnTo(raw)).toBe(expected);
  });
});

describe('session verdicts', () => {
  const now = new Date('2026-11-25T12:00:00Z');
  const base = {
    now,
    last_seen_at: new Date('2026-11-25T11:00:00Z'),
    absolute_expires_at: new Date('2026-11-26T00:00:00Z'),
    revoked_at: null,
  };
  test('live, idle, expired, revoked (revoked first, then absolute, then idle)', () => {
    expect(sessionVerdict(base, 120)).toBe('live');
    expect(sessionVerdict(base, 60)).toBe('idle');
    expect(sessionVerdict({ ...base, absolute_expires_at: now }, 120)).toBe('expired');
    expect(sessionVerdict({ ...base, revoked_at: now, absolute_expires_at: now }, 60)).toBe('revoked');
  });
});

describe('CSRF and origins', () => {
  test("a session's token matches only that session", () => {
    const a = csrfTokenFor('ccs_ws_a');
    expect(csrfTokenMatches('ccs_ws_a', a)).toBe(true);
    expect(csrfTokenMatches('ccs_ws_b', a)).toBe(false);
    expect(csrfTokenMatches('ccs_ws_a', undefined)).toBe(false);
    expect(csrfTokenMatches('ccs_ws_a', [a])).toBe(false);
  });
  // Issue 38, finding 4: a form says, signed, whom it was rendered for, so what it carries when its
  // session has ended (a kept form) belongs to that person and nobody else.
  test("a form's token is the session's CSRF token plus its subject, signed with the service key", () => {
    const alice = '11111111-1111-4111-8111-111111111111';
    const token = formTokenFor('ccs_ws_a', alice, 'key-one');
    expect(csrfTokenMatches('ccs_ws_a', token)).toBe(true);
    expect(csrfTokenMatches('ccs_ws_b', token)).toBe(false);
    expect(formSubjectOf(token, 'key-one')).toBe(alice);
    // Another key, a forged subject, a plain CSRF token: nobody.
    expect(formSubjectOf(token, 'key-two')).toBeNull();
    const [csrf, , signature] = token.split('.');
    expect(formSubjectOf(`${csrf}.22222222-2222-4222-8222-222222222222.${signature}`, 'key-one')).toBeNull();
    expect(formSubjectOf(csrfTokenFor('ccs_ws_a'), 'key-one')).toBeNull();
    expect(formSubjectOf(undefined, 'key-one')).toBeNull();
    expect(formSubjectOf(`${token}.more`, 'key-one')).toBeNull();
  });
  test('a kept form is shown to the person it was rendered for only', () => {
    expect(mayReadStashedForm({ userId: 'u1' }, { user_id: 'u1' })).toBe(true);
    expect(mayReadStashedForm({ userId: 'u2' }, { user_id: 'u1' })).toBe(false);
  });
  test('Origin first, else Referer; null, foreign or neither refused', () => {
    const site = 'https://c.example.com';
    expect(fromSameOrigin({ origin: site }, site)).toBe(true);
    expect(fromSameOrigin({ origin: 'null', referer: `${site}/x` }, site)).toBe(false);
    expect(fromSameOrigin({ origin: 'https://evil.example' }, site)).toBe(false);
    expect(fromSameOrigin({ referer: `${site}/me` }, site)).toBe(true);
    expect(fromSameOrigin({ referer: 'https://c.example.com.evil.example/' }, site)).toBe(false);
    expect(fromSameOrigin({}, site)).toBe(false);
  });
  test('embedded provider names', () => {
    expect(embeddedSubject('  demo|ada ')).toBe('demo|ada');
    expect(embeddedSubject('')).toBeNull();
    expect(embeddedSubject('a\u0000b')).toBeNull();
    expect(embeddedSubject('x'.repeat(256))).toBeNull();
  });
});
