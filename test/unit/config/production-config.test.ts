import { loadConfig } from '../../../src/config';

/**
 * Production refuses at start what is only safe in development (issue 11): each refusal is one
 * line naming the setting and what to set instead; the same values pass in development.
 */
const PRODUCTION: NodeJS.ProcessEnv = {
  NODE_ENV: 'production',
  AUTH_JWT_SECRET: 'a-production-secret-0123456789',
  WEBHOOK_SECRET_KEY: 'a-production-webhook-key-0123456789',
  DATABASE_URL: 'postgres://svc:s3cret@db.example.com:5432/challenges',
  METRICS_TOKEN: 'a-metrics-token-0123456789',
};

function refusal(overrides: NodeJS.ProcessEnv): string {
  try {
    loadConfig({ ...PRODUCTION, ...overrides });
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the configuration was accepted');
}

describe('production settings', () => {
  test('a hardened production configuration loads', () => {
    const config = loadConfig({
      ...PRODUCTION,
      TRUST_PROXY: '1',
      TRUST_PROXY_HOPS: '2',
      AUTH_OPERATOR_SUBJECTS: 'ops|1, ops|2',
      AUTH_OPERATOR_CLAIM: 'https://example.com/roles=operator',
      WEBHOOK_INTERNAL_ORIGINS: 'http://10.0.0.5:8080,http://[::1]:9000',
    });
    expect(config.AUTH_OPERATOR_SUBJECTS).toEqual(['ops|1', 'ops|2']);
    expect(config.WEBHOOK_INTERNAL_ORIGINS).toEqual(['http://10.0.0.5:8080', 'http://[::1]:9000']);
    expect(config.SPECTATOR_STREAMS_PER_IP).toBe(20);
  });

  test.each([
    [
      'WEBHOOK_ALLOW_PRIVATE',
      { WEBHOOK_ALLOW_PRIVATE: '1' },
      /WEBHOOK_ALLOW_PRIVATE: loopback webhook targets are refused in production/,
    ],
    [
      'a JWKS without issuer',
      { AUTH_JWKS_URL: 'https://idp.example.com/jwks', AUTH_JWT_AUDIENCE: 'svc' },
      /AUTH_JWKS_URL: a JWKS needs AUTH_JWT_ISSUER and AUTH_JWT_AUDIENCE/,
    ],
    [
      'a JWKS without audience',
      { AUTH_JWKS_URL: 'https://idp.example.com/jwks', AUTH_JWT_ISSUER: 'https://idp.example.com/' },
      /AUTH_JWKS_URL: a JWKS needs/,
    ],
    [
      'trusting the role claim',
      { AUTH_TRUST_ROLE_CLAIM: '1' },
      /AUTH_TRUST_ROLE_CLAIM: the role claim is refused in production/,
    ],
    [
      'a passwordless database URL',
      { DATABASE_URL: 'postgres://svc@db.example.com:5432/challenges' },
      /DATABASE_URL: a database URL without a password/,
    ],
    [
      '/metrics without a credential or listener',
      { METRICS_TOKEN: '' },
      /METRICS_TOKEN: \/metrics needs its own credential \(METRICS_TOKEN\) or listener \(METRICS_PORT\)/,
    ],
    [
      'a metrics listener beyond loopback without a token',
      { METRICS_TOKEN: '', METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' },
      /METRICS_HOST: \/metrics on 0\.0\.0\.0 is reachable beyond this machine: set METRICS_TOKEN/,
    ],
    [
      'a metrics listener on a public address without a token',
      { METRICS_TOKEN: '', METRICS_PORT: '9464', METRICS_HOST: '10.1.2.3' },
      /METRICS_HOST: \/metrics on 10\.1\.2\.3 is reachable beyond this machine/,
    ],
    [
      'TRUST_PROXY without a hop count',
      { TRUST_PROXY: '1' },
      /TRUST_PROXY_HOPS: TRUST_PROXY needs the number of trusted proxies/,
    ],
  ])('%s is refused with a one-line reason', (_name, overrides, reason) => {
    const message = refusal(overrides);
    expect(message).toMatch(/^invalid configuration: /);
    expect(message).toMatch(reason);
    expect(message).not.toContain('\n');
    // Development accepts the same values (only production refuses them).
    expect(() => loadConfig({ ...PRODUCTION, ...overrides, NODE_ENV: 'development' })).not.toThrow();
  });

  test('a metrics listener instead of a metrics token is accepted on loopback only', () => {
    expect(loadConfig({ ...PRODUCTION, METRICS_TOKEN: '', METRICS_PORT: '9464' }).METRICS_PORT).toBe(9464);
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]'])
      expect(
        loadConfig({ ...PRODUCTION, METRICS_TOKEN: '', METRICS_PORT: '9464', METRICS_HOST: host })
          .METRICS_HOST,
      ).toBe(host);
    // With a token the listener may face the network.
    expect(loadConfig({ ...PRODUCTION, METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' }).METRICS_HOST).toBe(
      '0.0.0.0',
    );
  });

  test('every refusal is listed at once, on one line', () => {
    const message = refusal({
      WEBHOOK_ALLOW_PRIVATE: '1',
      TRUST_PROXY: '1',
      DATABASE_URL: 'postgres://svc@db/x',
    });
    expect(message.split('; ')).toHaveLength(3);
    expect(message).not.toContain('\n');
  });

  test.each([
    ['an operator claim without a namespace', { AUTH_OPERATOR_CLAIM: 'role=admin' }],
    ['an operator claim without a value', { AUTH_OPERATOR_CLAIM: 'https://example.com/roles' }],
    ['an internal origin with a host name', { WEBHOOK_INTERNAL_ORIGINS: 'http://hooks.internal:8080' }],
    ['an internal origin with a path', { WEBHOOK_INTERNAL_ORIGINS: 'http://10.0.0.5:8080/hooks' }],
    ['a hop count of 0', { TRUST_PROXY_HOPS: '0' }],
  ])('%s is refused in every environment', (_name, overrides) => {
    expect(() => loadConfig({ ...overrides, NODE_ENV: 'development' })).toThrow(/^invalid configuration: /);
  });
});
