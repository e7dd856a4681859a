import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { RATE_LIMIT_CATEGORIES, type RateLimitCategory } from '../../src/api/rate-limits';
import { defineRoute, type AnyRouteDef } from '../../src/api/route';
import { allRoutes } from '../../src/api/routes';
import { eventually, newAgent, newAgentKey, type TestAgent } from '../helpers/factories';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/server';

/** The spec's limits table (section 8) and DESIGN.md's numbers for what it leaves open. */
const EXPECTED: Record<RateLimitCategory, { limit: number; windowSec: number }> = {
  reads: { limit: 200, windowSec: 60 },
  submissions: { limit: 30, windowSec: 60 },
  sessions: { limit: 60, windowSec: 60 },
  webhooks: { limit: 20, windowSec: 3600 },
  tokenCreation: { limit: 10, windowSec: 3600 },
  heartbeat: { limit: 120, windowSec: 60 },
  stream: { limit: 30, windowSec: 60 },
  assigned: { limit: 30, windowSec: 60 },
  anonymous: { limit: 60, windowSec: 60 },
  pages: { limit: 300, windowSec: 60 },
  default: { limit: 200, windowSec: 60 },
};
const CATEGORIES = Object.keys(RATE_LIMIT_CATEGORIES) as RateLimitCategory[];

/** Test-only probes: one bearer route per category, and a connector route on the assigned poll's budget. */
const probeRoutes: AnyRouteDef[] = [
  ...CATEGORIES.map((category) =>
    defineRoute({
      operationId: `testRateProbe_${category}`,
      method: 'get',
      path: `/test/rate/${category}`,
      summary: 'test probe',
      tags: ['test'],
      auth: 'bearer',
      rateLimit: category,
      responses: { 200: { description: 'ok' } },
      async handler() {
        return { data: { ok: true } };
      },
    }),
  ),
  defineRoute({
    operationId: 'testAssignedPoll',
    method: 'get',
    path: '/test/connector/assigned',
    summary: 'test probe',
    tags: ['test'],
    auth: 'agentKey',
    rateLimit: 'assigned',
    responses: { 200: { description: 'ok' } },
    async handler() {
      return { raw: { challenges: [] } };
    },
  }),
];

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({}, { routes: [...allRoutes(), ...probeRoutes] });
});
afterAll(() => server.close());

const nowSec = () => Date.now() / 1000;
const header = (res: ApiResponse, name: string) => res.headers.get(name);
const remaining = (res: ApiResponse) => Number(header(res, 'x-ratelimit-remaining'));

function expectRateHeaders(res: ApiResponse, limit: number, windowSec: number) {
  expect(header(res, 'x-ratelimit-limit')).toBe(String(limit));
  expect(header(res, 'x-ratelimit-remaining')).toMatch(/^\d+$/);
  const reset = header(res, 'x-ratelimit-reset')!;
  expect(reset).toMatch(/^\d+$/);
  // A Unix timestamp (seconds) within the window from now.
  expect(Number(reset)).toBeGreaterThanOrEqual(Math.floor(nowSec()));
  expect(Number(reset)).toBeLessThanOrEqual(Math.ceil(nowSec()) + windowSec + 1);
}

/** The retired submission endpoint is a real route on the 'submissions' budget (30/min) for a token. */
const submit = (s: TestServer, agent: TestAgent) =>
  s.request('POST', '/api/v1/submissions', { auth: agent.token, body: { content: 'x' } });

describe('rate limit categories', () => {
  test('every category answers with its limit, a countdown and a reset within its window', async () => {
    const agent = await newAgent(server);
    for (const category of CATEGORIES.filter((c) => c !== 'anonymous')) {
      const { limit, windowSec } = EXPECTED[category];
      const first = await server.request('GET', `/test/rate/${category}`, { auth: agent.token });
      expect(first.status).toBe(200);
      expectRateHeaders(first, limit, windowSec);
      expect(remaining(first)).toBe(limit - 1);
      const second = await server.request('GET', `/test/rate/${category}`, { auth: agent.token });
      expect(remaining(second)).toBe(limit - 2);
    }
  });

  test('submissions: Remaining counts 29..0, then 429 RATE_LIMITED with Retry-After; other budgets stay untouched', async () => {
    const agent = await newAgent(server);
    const seen: number[] = [];
    const resets = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const res = await submit(server, agent);
      expect(res.status).toBe(410); // the route's own answer: the budget allowed it
      expectRateHeaders(res, 30, 60);
      seen.push(remaining(res));
      resets.add(header(res, 'x-ratelimit-reset')!);
    }
    expect(seen).toEqual(Array.from({ length: 30 }, (_, i) => 29 - i));
    // One window: the reset instant does not move with each request.
    const resetValues = [...resets].map(Number);
    expect(Math.max(...resetValues) - Math.min(...resetValues)).toBeLessThanOrEqual(1);

    const limited = await submit(server, agent);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      error: {
        code: 'RATE_LIMITED',
        message: expect.any(String),
        request_id: header(limited, 'x-request-id'),
      },
    });
    expectRateHeaders(limited, 30, 60);
    expect(remaining(limited)).toBe(0);
    const retryAfter = Number(header(limited, 'retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(header(limited, 'x-request-id')).toMatch(/^req_/);
    expect(header(limited, 'x-api-version')).toBe('1');

    // Another category of the same token has its own budget.
    const sessions = await server.request('GET', '/test/rate/sessions', { auth: agent.token });
    expect(sessions.status).toBe(200);
    expect(remaining(sessions)).toBe(59);
    // Another token of the same agent and user has its own budget (limits are per token).
    const second = await server.request('POST', '/api/v1/auth/tokens', {
      auth: agent.user.jwt,
      body: { name: 'second', scopes: ['challenge:read'], agent_id: agent.agentId },
    });
    const other = await server.request('POST', '/api/v1/submissions', {
      auth: second.body.data.token,
      body: { content: 'x' },
    });
    expect(other.status).toBe(410);
    expect(remaining(other)).toBe(29);
    // The owner's session JWT too.
    const byJwt = await server.request('POST', '/api/v1/submissions', {
      auth: agent.user.jwt,
      body: { content: 'x' },
    });
    expect(byJwt.status).toBe(410);
    expect(remaining(byJwt)).toBe(29);
  });

  test('the assigned poll answers 429 with Retry-After: 60 and the connector flat error body', async () => {
    const agent = await newAgent(server);
    const key = await newAgentKey(server, agent);
    // The real connector route when it exists, else the test probe on the same budget.
    const real = allRoutes().find((r) => r.method === 'get' && r.path === '/api/v1/challenges/assigned');
    if (real) expect(real.rateLimit).toBe('assigned');
    const path = real ? '/api/v1/challenges/assigned' : '/test/connector/assigned';
    for (let i = 0; i < 30; i++) {
      const res = await server.request('GET', path, { agentKey: key });
      expect(res.status).toBe(200);
      expect(remaining(res)).toBe(29 - i);
    }
    const limited = await server.request('GET', path, { agentKey: key });
    expect(limited.status).toBe(429);
    expect(header(limited, 'retry-after')).toBe('60');
    expect(limited.body).toEqual({ error: expect.any(String) });
    expectRateHeaders(limited, 30, 60);
    expect(remaining(limited)).toBe(0);
  });

  test('unknown routes and 4xx answers carry the headers and count against the budget', async () => {
    const agent = await newAgent(server);
    const unknown = await server.request('GET', '/api/v1/no-such-route', { auth: agent.token });
    expect(unknown.status).toBe(404);
    expectRateHeaders(unknown, 200, 60);
    expect(remaining(unknown)).toBe(199);
    const invalid = await server.request('PATCH', `/api/v1/agents/${agent.agentId}`, {
      auth: agent.token,
      body: { skill_count: -1 },
    });
    expect(invalid.status).toBe(400);
    expectRateHeaders(invalid, 200, 60);
    expect(remaining(invalid)).toBe(198); // same 'default' budget as the unknown route
    const ip = { 'x-forwarded-for': '192.0.2.77' };
    const anonymous404 = await server.request('GET', '/api/v1/no-such-route', { headers: ip });
    expect(anonymous404.status).toBe(404);
    expectRateHeaders(anonymous404, 60, 60);
    const anonymous401 = await server.request('GET', '/api/v1/agents', { headers: ip });
    expect(anonymous401.status).toBe(401);
    expectRateHeaders(anonymous401, 60, 60);
    expect(remaining(anonymous401)).toBe(remaining(anonymous404) - 1);
  });
});

describe('anonymous callers', () => {
  const PUBLIC_READ = '/api/v1/challenges';

  test('are limited per client IP (60/min), bad credentials included; another IP has its own budget', async () => {
    const ipA = { 'x-forwarded-for': '198.51.100.10' };
    const ipB = { 'x-forwarded-for': '198.51.100.11' };
    for (let i = 0; i < 59; i++) {
      const res = await server.request('GET', PUBLIC_READ, { headers: ipA });
      expect(res.status).toBe(200);
      expect(remaining(res)).toBe(59 - i);
    }
    // A presented but invalid token is counted on the same per-IP budget (no free brute force).
    const bad = await server.request('GET', '/api/v1/agents', {
      headers: ipA,
      auth: 'svc_sk_live_not-a-real-token-000000000000000000000',
    });
    expect(bad.status).toBe(401);
    expect(remaining(bad)).toBe(0);
    const limited = await server.request('GET', PUBLIC_READ, { headers: ipA });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expectRateHeaders(limited, 60, 60);
    expect(Number(header(limited, 'retry-after'))).toBeGreaterThanOrEqual(1);

    const other = await server.request('GET', PUBLIC_READ, { headers: ipB });
    expect(other.status).toBe(200);
    expect(remaining(other)).toBe(59);
  });

  test('health and readiness probes answer 200 on a drained budget, report it, and spend none of it', async () => {
    const drained = { 'x-forwarded-for': '198.51.100.20' };
    for (let i = 0; i < 60; i++) await server.request('GET', PUBLIC_READ, { headers: drained });
    expect((await server.request('GET', PUBLIC_READ, { headers: drained })).status).toBe(429);
    for (const probe of ['/healthz', '/readyz']) {
      const res = await server.request('GET', probe, { headers: drained });
      expect({ probe, status: res.status }).toEqual({ probe, status: 200 });
      expectRateHeaders(res, 60, 60);
      expect(remaining(res)).toBe(0);
    }

    // A fresh address probed many times still has its whole budget for counted requests.
    const probed = { 'x-forwarded-for': '198.51.100.21' };
    for (let i = 0; i < 70; i++) {
      const res = await server.request('GET', i % 2 ? '/healthz' : '/readyz', { headers: probed });
      expect(res.status).toBe(200);
      expect(remaining(res)).toBe(60);
    }
    const counted = await server.request('GET', PUBLIC_READ, { headers: probed });
    expect(remaining(counted)).toBe(59);
    const afterCounted = await server.request('GET', '/healthz', { headers: probed });
    expect(remaining(afterCounted)).toBe(59);
    expect(header(afterCounted, 'x-ratelimit-reset')).toBe(header(counted, 'x-ratelimit-reset'));
  });
});

describe('several API processes', () => {
  let child: ChildProcess | undefined;
  let childLog = '';

  afterAll(async () => {
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
  });

  async function freePort(): Promise<number> {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as net.AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    return port;
  }

  /** A second, real API process (npm run api) on the same database. */
  async function startSecondApi(): Promise<string> {
    const port = await freePort();
    const root = path.resolve(__dirname, '../..');
    child = spawn(process.execPath, [require.resolve('tsx/cli'), 'src/api/server.ts'], {
      cwd: root,
      env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', TRUST_PROXY: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (c: Buffer) => (childLog += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (childLog += c.toString()));
    const baseUrl = `http://127.0.0.1:${port}`;
    await eventually(
      async () => {
        if (child!.exitCode !== null) throw new Error(`second API exited: ${childLog}`);
        return (await fetch(`${baseUrl}/healthz`)).status === 200;
      },
      60_000,
      200,
    );
    return baseUrl;
  }

  test('two API processes enforce ONE budget: 40 concurrent requests, exactly 30 allowed', async () => {
    const otherBaseUrl = await startSecondApi();
    const agent = await newAgent(server);
    const viaChild = async () => {
      const res = await fetch(`${otherBaseUrl}/api/v1/submissions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${agent.token}`, 'content-type': 'application/json' },
        body: '{"content":"x"}',
      });
      await res.text();
      return { status: res.status, remaining: Number(res.headers.get('x-ratelimit-remaining')) };
    };
    const viaJest = async () => {
      const res = await submit(server, agent);
      return { status: res.status, remaining: remaining(res) };
    };
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? viaChild() : viaJest())),
    );
    const allowed = results.filter((r) => r.status === 410);
    const limited = results.filter((r) => r.status === 429);
    expect(allowed).toHaveLength(30);
    expect(limited).toHaveLength(10);
    // Each allowed request saw its own place in the shared countdown.
    expect(allowed.map((r) => r.remaining).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 30 }, (_, i) => i),
    );
    expect(limited.every((r) => r.remaining === 0)).toBe(true);
    // (Per-process budgets would have allowed all 40: 20 per process, each under 30.)
    expect((await viaChild()).status).toBe(429);
    expect((await viaJest()).status).toBe(429);
  });
});
