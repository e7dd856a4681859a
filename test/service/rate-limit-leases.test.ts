import { spawnSync } from 'node:child_process';
import { Redis } from 'ioredis';
import {
  createLeasingRateLimiter,
  LEASE_POLICY,
  postgresRateLimitStore,
  redisRateLimitStore,
  type RateLimitStore,
} from '../../src/api/rate-limits';
import { defineRoute } from '../../src/api/route';
import { allRoutes } from '../../src/api/routes';
import { giveBackRateLimitSlots, readRateLimit, takeRateLimitSlots } from '../../src/db/queries/rate-limits';
import { newAgent } from '../helpers/factories';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * Issue 42: API processes spend one shared budget per subject from local allocations (leases
 * taken from the store in batches, idle tails given back). Two apps with their own deps (their own
 * pools or Redis connections and their own leases, as two API processes would have) over one
 * store, both stores: concurrent callers on both never get more than the limit, every admitted
 * request has its own place in the countdown, and a caller never sees Remaining rise.
 */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const redisReachable =
  spawnSync(process.execPath, [
    '-e',
    `const u = new URL(${JSON.stringify(REDIS_URL)}); require('net').connect(Number(u.port || 6379), u.hostname).on('connect', () => process.exit(0)).on('error', () => process.exit(1))`,
  ]).status === 0;
/** Our own keys in a Redis other suites share. */
const REDIS_PREFIX = `test-limiter-${process.pid}-${Date.now()}`;

/** A bearer route on the reads budget (200/min) that does nothing else. */
const probe = defineRoute({
  operationId: 'testLeaseProbe',
  method: 'get',
  path: '/test/lease-probe',
  summary: 'test probe',
  tags: ['test'],
  auth: 'bearer',
  rateLimit: 'reads',
  responses: { 200: { description: 'ok' } },
  async handler() {
    return { data: { ok: true } };
  },
});

interface Seen {
  status: number;
  remaining: number;
  reset: number;
  retryAfter: number | null;
  receivedAtSec: number;
}

/** Eight callers, four on each app, each sending one request after another until refused. */
async function drainTogether(a: TestServer, b: TestServer): Promise<Seen[][]> {
  const agent = await newAgent(a);
  return Promise.all(
    Array.from({ length: 8 }, async (_, n) => {
      const server = n % 2 ? a : b;
      const seen: Seen[] = [];
      for (;;) {
        const res = await server.request('GET', '/test/lease-probe', { auth: agent.token });
        seen.push({
          status: res.status,
          remaining: Number(res.headers.get('x-ratelimit-remaining')),
          reset: Number(res.headers.get('x-ratelimit-reset')),
          retryAfter: res.headers.has('retry-after') ? Number(res.headers.get('retry-after')) : null,
          receivedAtSec: Date.now() / 1000,
        });
        if (res.status !== 200) return seen;
        if (seen.length > 250) throw new Error('never refused');
      }
    }),
  );
}

function expectOneExactBudget(callers: Seen[][]): void {
  const all = callers.flat();
  const allowed = all.filter((s) => s.status === 200);
  // Never more than the limit, and no slot stranded: every caller ran until refused.
  expect(allowed).toHaveLength(200);
  expect(all.filter((s) => s.status !== 200).every((s) => s.status === 429)).toBe(true);
  // Each admitted request saw its own place in the one countdown.
  expect(allowed.map((s) => s.remaining).sort((x, y) => x - y)).toEqual(
    Array.from({ length: 200 }, (_, i) => i),
  );
  for (const seen of callers) {
    // Remaining never rises for a caller.
    for (let i = 1; i < seen.length; i++)
      expect(seen[i].remaining).toBeLessThanOrEqual(seen[i - 1].remaining);
    const refused = seen[seen.length - 1];
    expect(refused.remaining).toBe(0);
    // Retry-After: whole seconds until the window (the Reset every answer named) ends.
    expect(Number.isInteger(refused.retryAfter)).toBe(true);
    expect(refused.retryAfter!).toBeGreaterThanOrEqual(1);
    expect(refused.retryAfter!).toBeLessThanOrEqual(60);
    expect(Math.abs(refused.receivedAtSec + refused.retryAfter! - refused.reset)).toBeLessThanOrEqual(2);
  }
  const resets = all.map((s) => s.reset);
  expect(Math.max(...resets) - Math.min(...resets)).toBeLessThanOrEqual(1);
}

/** Store-level: near the limit a take grants only what is asked for now; a count never passes the limit. */
async function expectNearLimitOneByOne(store: RateLimitStore, key: string): Promise<void> {
  const step = (demand: number, extra: number) => ({ key, demand, extra, limit: 200, durationMs: 60_000 });
  // Far from the limit a busy key gets extra slots, at most a quarter of what lies above the margin.
  const first = (await store.take([step(1, 64)])).get(key)!;
  expect(first.granted).toBe(
    1 + Math.min(64, Math.floor((200 - 1 - LEASE_POLICY.nearLimit) / LEASE_POLICY.spread)),
  );
  expect(first.points).toBe(first.granted);
  // An unspent tail goes back while its lease is the newest of its window...
  expect([
    ...(await store.giveBack([{ key, end: first.points, expire: first.expire, count: first.granted - 1 }])),
  ]).toEqual([key]);
  expect((await store.read(key))!.points).toBe(1);
  // ...and not once another lease was taken after it.
  const second = (await store.take([step(1, 0)])).get(key)!;
  expect(second).toEqual({ points: 2, expire: first.expire, granted: 1 });
  expect((await store.giveBack([{ key, end: 1, expire: first.expire, count: 1 }])).size).toBe(0);
  // Within NEAR_LIMIT of the limit: no extra at all.
  const bulk = (await store.take([step(200 - LEASE_POLICY.nearLimit - 2, 0)])).get(key)!;
  expect(bulk.points).toBe(200 - LEASE_POLICY.nearLimit);
  const near = (await store.take([step(1, 64)])).get(key)!;
  expect(near).toEqual({ points: 200 - LEASE_POLICY.nearLimit + 1, expire: first.expire, granted: 1 });
  // At the limit: what is left, then nothing; the count stays at the limit.
  const rest = (await store.take([step(1000, 64)])).get(key)!;
  expect(rest).toEqual({ points: 200, expire: first.expire, granted: LEASE_POLICY.nearLimit - 1 });
  expect((await store.take([step(1, 0)])).get(key)).toEqual({
    points: 200,
    expire: first.expire,
    granted: 0,
  });
}

describe('one budget spent from local allocations, in PostgreSQL', () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startTestServer({}, { routes: [...allRoutes(), probe] });
    b = await startTestServer({}, { routes: [...allRoutes(), probe] });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  test('two apps, eight concurrent callers: exactly 200 admitted, each its own place, Remaining never rising', async () => {
    expectOneExactBudget(await drainTogether(a, b));
  });

  test('a busy subject takes its slots in batches, and each of the last NEAR_LIMIT from the table', async () => {
    const inner = postgresRateLimitStore(a.deps.db);
    const takes: number[] = []; // places a take left the count at, in order
    const limiter = createLeasingRateLimiter({
      ...inner,
      take: async (steps) => {
        const grants = await inner.take(steps);
        for (const g of grants.values()) takes.push(g.points);
        return grants;
      },
    });
    const subject = `lease-batches-${Date.now()}-${Math.random()}`;
    const remaining: number[] = [];
    for (let i = 0; i < 200; i++) remaining.push((await limiter.consume('reads', subject)).remaining);
    expect(remaining).toEqual(Array.from({ length: 200 }, (_, i) => 199 - i));
    expect((await limiter.consume('reads', subject)).allowed).toBe(false);
    // Far from the limit: batches (the first request of a subject asks for itself alone).
    const farTakes = takes.filter((points) => points <= 200 - LEASE_POLICY.nearLimit);
    expect(farTakes.length).toBeLessThan((200 - LEASE_POLICY.nearLimit) / 2);
    // Near it: one take per request.
    expect(takes.filter((points) => points > 200 - LEASE_POLICY.nearLimit)).toEqual(
      Array.from({ length: LEASE_POLICY.nearLimit }, (_, i) => 200 - LEASE_POLICY.nearLimit + 1 + i),
    );
  });

  test('the table grants extra slots only far from the limit, and takes back only the newest tail', async () => {
    const key = `rl:test-lease:${Date.now()}-${Math.random()}`;
    await expectNearLimitOneByOne(
      {
        take: (steps) => takeRateLimitSlots(a.deps.db, steps, LEASE_POLICY),
        giveBack: (tails) => giveBackRateLimitSlots(a.deps.db, tails),
        read: (k) => readRateLimit(a.deps.db, k),
      },
      key,
    );
  });
});

(redisReachable ? describe : describe.skip)('one budget spent from local allocations, in Redis', () => {
  let a: TestServer;
  let b: TestServer;
  let redis: Redis;
  beforeAll(async () => {
    const env = { REDIS_URL, RATE_LIMIT_REDIS_PREFIX: REDIS_PREFIX };
    a = await startTestServer(env, { routes: [...allRoutes(), probe] });
    b = await startTestServer(env, { routes: [...allRoutes(), probe] });
    await Promise.all([a.deps.rateLimiter.whenReady?.(), b.deps.rateLimiter.whenReady?.()]);
    redis = new Redis(REDIS_URL, { lazyConnect: true });
    await redis.connect();
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    redis?.disconnect();
  });

  test('two apps, eight concurrent callers: exactly 200 admitted, each its own place, Remaining never rising', async () => {
    expectOneExactBudget(await drainTogether(a, b));
    // The counters were ours: under our prefix.
    expect((await redis.keys(`${REDIS_PREFIX}:reads:*`)).length).toBeGreaterThan(0);
  });

  test('Redis grants extra slots only far from the limit, and takes back only the newest tail', async () => {
    await expectNearLimitOneByOne(redisRateLimitStore(redis), `${REDIS_PREFIX}:test-lease:${Date.now()}`);
  });
});
