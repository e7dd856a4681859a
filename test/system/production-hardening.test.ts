import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { SignJWT } from 'jose';
import { mintSessionJwt } from '../../src/auth/jwt';
import { startMetricsListener } from '../../src/api/metrics-access';
import { createActive } from '../helpers/challenge-factories';
import { eventually, newAdmin } from '../helpers/factories';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * The production hardening of issue 11 over real HTTP: operators named by the server, the client
 * address taken from the right of X-Forwarded-For, /metrics behind its own credential or
 * listener, and a per-address cap on spectator streams.
 */
const randomIp = () => `198.51.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;

function expectEnvelope(
  res: { status: number; body: unknown; headers: Headers },
  status: number,
  code: string,
) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({
    error: { code, message: expect.any(String), request_id: res.headers.get('x-request-id') },
  });
}

describe('operators are decided by server settings, not by a role claim', () => {
  const OPERATOR_SUBJECT = `ops|${randomUUID()}`;
  const CLAIM = 'https://svc.test/roles';
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      AUTH_TRUST_ROLE_CLAIM: '0',
      AUTH_OPERATOR_SUBJECTS: `someone-else,${OPERATOR_SUBJECT}`,
      AUTH_OPERATOR_CLAIM: `${CLAIM}=operator`,
    });
  });
  afterAll(() => server.close());

  const jwtWith = (claims: Record<string, unknown>, sub = `test|${randomUUID()}`) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(sub)
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(server.config.AUTH_JWT_SECRET));
  const listAsOperator = (jwt: string) =>
    server.request('GET', '/api/v1/admin/challenges?limit=1', { auth: jwt });

  test('a token claiming role admin is an ordinary user', async () => {
    const jwt = await mintSessionJwt(server.config.AUTH_JWT_SECRET, {
      sub: `test|${randomUUID()}`,
      role: 'admin',
    });
    expectEnvelope(await listAsOperator(jwt), 403, 'FORBIDDEN');
  });

  test('a subject listed in AUTH_OPERATOR_SUBJECTS is an operator, whatever its claims', async () => {
    expect((await listAsOperator(await jwtWith({ role: 'user' }, OPERATOR_SUBJECT))).status).toBe(200);
  });

  test('the namespaced claim named in AUTH_OPERATOR_CLAIM makes an operator (string or array)', async () => {
    expect((await listAsOperator(await jwtWith({ [CLAIM]: 'operator' }))).status).toBe(200);
    expect((await listAsOperator(await jwtWith({ [CLAIM]: ['viewer', 'operator'] }))).status).toBe(200);
    expectEnvelope(await listAsOperator(await jwtWith({ [CLAIM]: 'viewer' })), 403, 'FORBIDDEN');
    // The same value under the unnamespaced name is not the claim.
    expectEnvelope(await listAsOperator(await jwtWith({ roles: 'operator' })), 403, 'FORBIDDEN');
  });
});

describe('TRUST_PROXY_HOPS: the client is the rightmost entry no trusted proxy wrote', () => {
  const remainingFor = async (server: TestServer, xff: string) =>
    Number(
      (
        await server.request('GET', '/api/v1/challenges?limit=1', { headers: { 'x-forwarded-for': xff } })
      ).headers.get('x-ratelimit-remaining'),
    );

  test('one hop: spoofed leftmost entries do not change the client (shared anonymous budget)', async () => {
    const server = await startTestServer({ TRUST_PROXY_HOPS: '1' });
    try {
      const client = randomIp();
      const first = await remainingFor(server, `${randomIp()}, ${client}`);
      const second = await remainingFor(server, `${randomIp()}, ${randomIp()}, ${client}`);
      expect(second).toBe(first - 1);
      // A different rightmost entry is a different client, with its own budget.
      expect(await remainingFor(server, `${client}, ${randomIp()}`)).toBeGreaterThan(second);
    } finally {
      await server.close();
    }
  });

  test('two hops: the second entry from the right is the client', async () => {
    const server = await startTestServer({ TRUST_PROXY_HOPS: '2' });
    try {
      const client = randomIp();
      const first = await remainingFor(server, `${randomIp()}, ${client}, 10.0.0.1`);
      const second = await remainingFor(server, `${client}, 10.0.0.2`);
      expect(second).toBe(first - 1);
    } finally {
      await server.close();
    }
  });
});

describe('/metrics needs its own credential or listener', () => {
  const TOKEN = `metrics-${randomUUID()}`;

  test('with METRICS_TOKEN: 401 in the envelope without it or with another, 200 with it', async () => {
    const server = await startTestServer({ METRICS_TOKEN: TOKEN });
    try {
      expectEnvelope(await server.request('GET', '/metrics'), 401, 'UNAUTHORIZED');
      expectEnvelope(await server.request('GET', '/metrics', { auth: `${TOKEN}x` }), 401, 'UNAUTHORIZED');
      // A valid user JWT is not the metrics credential either.
      expectEnvelope(
        await server.request('GET', '/metrics', { auth: (await newAdmin(server)).jwt }),
        401,
        'UNAUTHORIZED',
      );
      const ok = await server.request('GET', '/metrics', { auth: TOKEN });
      expect(ok.status).toBe(200);
      expect(ok.text).toContain('process_cpu_user_seconds_total');
    } finally {
      await server.close();
    }
  });

  test('with METRICS_PORT: the API port answers 404, the metrics listener serves it', async () => {
    const server = await startTestServer({ METRICS_PORT: '9' });
    const listener = startMetricsListener({
      METRICS_PORT: 0,
      METRICS_HOST: '127.0.0.1',
      METRICS_TOKEN: TOKEN,
    });
    try {
      expectEnvelope(await server.request('GET', '/metrics'), 404, 'NOT_FOUND');
      await new Promise<void>((resolve) =>
        listener.listening ? resolve() : listener.once('listening', () => resolve()),
      );
      const url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
      expect((await fetch(`${url}/metrics`)).status).toBe(401);
      const ok = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('process_cpu_user_seconds_total');
      expect(
        (await fetch(`${url}/api/v1/challenges`, { headers: { authorization: `Bearer ${TOKEN}` } })).status,
      ).toBe(404);
    } finally {
      listener.close();
      await server.close();
    }
  });
});

describe('production refuses /metrics reachable beyond loopback without METRICS_TOKEN', () => {
  test('`npm run api` with a token-less metrics listener on 0.0.0.0 exits at start with a one-line reason, listening on nothing', async () => {
    const metricsPort = 18_100 + Math.floor(Math.random() * 50);
    const api = spawn(process.execPath, [require.resolve('tsx/cli'), 'src/api/server.ts'], {
      cwd: path.resolve(__dirname, '../..'),
      env: {
        ...process.env,
        NODE_ENV: 'production',
        // The test run's shortened arena minute (test-env.ts) is refused in production.
        ARENA_MINUTE_MS: '60000',
        AUTH_JWT_SECRET: `a-production-secret-${randomUUID()}`,
        WEBHOOK_SECRET_KEY: `a-production-webhook-key-${randomUUID()}`,
        DATABASE_URL: 'postgres://svc:s3cret@127.0.0.1:5432/challenges',
        AUTH_TRUST_ROLE_CLAIM: '0',
        WEBHOOK_ALLOW_PRIVATE: '0',
        METRICS_TOKEN: '',
        METRICS_PORT: String(metricsPort),
        METRICS_HOST: '0.0.0.0',
        PORT: String(metricsPort + 50),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    api.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => api.once('exit', resolve));
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /invalid configuration: .*METRICS_HOST: \/metrics on 0\.0\.0\.0 is reachable beyond this machine: set METRICS_TOKEN/,
    );
    const connected = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port: metricsPort });
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    expect(connected).toBe(false);
  });
});

describe('spectator streams: at most SPECTATOR_STREAMS_PER_IP per client address', () => {
  test('the stream over the cap is answered 429 in the envelope; closing one frees its slot', async () => {
    const server = await startTestServer({ SPECTATOR_STREAMS_PER_IP: '2' });
    const aborts: AbortController[] = [];
    const open = async (ip: string) => {
      const abort = new AbortController();
      aborts.push(abort);
      const res = await fetch(`${server.baseUrl}/api/v1/challenges/${challengeId}/live`, {
        headers: { 'x-forwarded-for': ip },
        signal: abort.signal,
      });
      return { res, abort };
    };
    let challengeId = '';
    try {
      challengeId = (await createActive(server)).id;
      const ip = randomIp();
      const first = await open(ip);
      const second = await open(ip);
      expect([first.res.status, second.res.status]).toEqual([200, 200]);

      const third = await open(ip);
      expect(third.res.status).toBe(429);
      expect(third.res.headers.get('retry-after')).toBe('30');
      const body = (await third.res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('RATE_LIMITED');
      expect(body.error.message).toMatch(/at most 2 spectator streams/);

      // Another address is not affected.
      expect((await open(randomIp())).res.status).toBe(200);

      // Closing a stream frees its slot (once the server has seen the close).
      first.abort.abort();
      await eventually(async () => {
        const again = await open(ip);
        if (again.res.status === 200) return true;
        await again.res.body?.cancel();
        return false;
      });
    } finally {
      for (const abort of aborts) abort.abort();
      await server.close();
    }
  });
});
