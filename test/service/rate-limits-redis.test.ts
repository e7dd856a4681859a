import { spawnSync } from 'node:child_process';
import { newAgent } from '../helpers/factories';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * With REDIS_URL the rate-limit counters live in Redis (the PostgreSQL table stays the default):
 * the same budgets, headers and one shared budget across processes (each test server has its
 * own Redis connection and its own process-local state, as two API processes would).
 */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Redis is optional for the service; where none runs, this suite is reported as skipped. */
const redisReachable =
  spawnSync(process.execPath, [
    '-e',
    `const u = new URL(${JSON.stringify(REDIS_URL)}); require('net').connect(Number(u.port || 6379), u.hostname).on('connect', () => process.exit(0)).on('error', () => process.exit(1))`,
  ]).status === 0;

(redisReachable ? describe : describe.skip)('rate limits in Redis (REDIS_URL)', () => {
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    a = await startTestServer({ REDIS_URL });
    b = await startTestServer({ REDIS_URL });
    await Promise.all([a.deps.rateLimiter.whenReady?.(), b.deps.rateLimiter.whenReady?.()]);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  const submit = (server: TestServer, token: string) =>
    server.request('POST', '/api/v1/submissions', { auth: token, body: { content: 'x' } });

  test('two servers share ONE budget in Redis: 40 concurrent requests, exactly 30 allowed, each with its own place in the countdown', async () => {
    const agent = await newAgent(a);
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => submit(i % 2 ? a : b, agent.token)),
    );
    const allowed = results.filter((r) => r.status === 410);
    const limited = results.filter((r) => r.status === 429);
    expect(allowed).toHaveLength(30);
    expect(limited).toHaveLength(10);
    expect(allowed.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 30 }, (_, i) => i),
    );
    for (const r of limited) {
      expect(r.body.error.code).toBe('RATE_LIMITED');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
    }
    // Refused on both, from Redis or from the exhausted key's in-memory block alike.
    expect((await submit(a, agent.token)).status).toBe(429);
    expect((await submit(b, agent.token)).status).toBe(429);
  });

  test('health and readiness probes answer 200 on a drained anonymous budget and spend none of it', async () => {
    const ip = {
      'x-forwarded-for': `198.18.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
    };
    for (let i = 0; i < 60; i++) await a.request('GET', '/api/v1/challenges?limit=1', { headers: ip });
    expect((await b.request('GET', '/api/v1/challenges?limit=1', { headers: ip })).status).toBe(429);
    for (const probe of ['/healthz', '/readyz']) {
      const res = await b.request('GET', probe, { headers: ip });
      expect({ probe, status: res.status, remaining: res.headers.get('x-ratelimit-remaining') }).toEqual({
        probe,
        status: 200,
        remaining: '0',
      });
    }
  });

  test('the limit and countdown headers are the same as with PostgreSQL', async () => {
    const agent = await newAgent(a);
    const first = await a.request('GET', '/api/v1/agents', { auth: agent.token });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('200');
    const second = await b.request('GET', '/api/v1/agents', { auth: agent.token });
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(
      Number(first.headers.get('x-ratelimit-remaining')) - 1,
    );
  });
});
