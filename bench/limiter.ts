/**
 * The rate limiter alone, A/B in one run (issue 13: "the limiter's cost measured and reduced"):
 * rate-limiter-flexible's RateLimiterPostgres (an unnamed upsert per call, parsed and planned each time)
 * against the service's limiter (src/api/rate-limits.ts: slots taken in batches into local
 * allocations, issue 42), in PostgreSQL and, when a Redis answers, in Redis. Same table, same pool
 * settings (synchronous_commit=off), 16 concurrent callers each spending 150 requests per subject
 * (under the reads budget of 200, so nothing is refused: the cost of counting), rounds alternated
 * so the shared machine's noise hits every variant.
 *
 *   npx tsx bench/limiter.ts      (database BENCH_DATABASE_NAME_limiter, recreated)
 */
import { Redis } from 'ioredis';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import { createPostgresRateLimiter, createRedisRateLimiter } from '../src/api/rate-limits';
import { createPool } from '../src/db/pool';
import { fmt } from './lib/report';
import { recreateDatabase } from './lib/stack';

const ROUND_MS = Number(process.env.BENCH_LIMITER_ROUND_MS ?? 3_000);
const ROUNDS = Number(process.env.BENCH_LIMITER_ROUNDS ?? 3);
const CALLERS = 16;
/** Requests per subject before a caller moves on to a fresh one (the reads budget is 200/min). */
const PER_SUBJECT = 150;

async function round(
  consume: (key: string) => Promise<unknown>,
): Promise<{ perSecond: number; cpuMsPerCall: number }> {
  let calls = 0;
  const cpu0 = process.cpuUsage();
  const started = Date.now();
  await Promise.all(
    Array.from({ length: CALLERS }, async (_, c) => {
      for (let i = 0; Date.now() - started < ROUND_MS; i++) {
        await consume(`bench-${c}-${Math.floor(i / PER_SUBJECT)}`);
        calls += 1;
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  const elapsed = Date.now() - started;
  return { perSecond: (calls * 1000) / elapsed, cpuMsPerCall: (cpu.user + cpu.system) / 1000 / calls };
}

async function main(): Promise<void> {
  const url = await recreateDatabase(`${process.env.BENCH_DATABASE_NAME ?? 'challenges_bench'}_limiter`);
  const pool = createPool(url, 5, { synchronousCommit: false });
  // Points high enough that no key is ever refused: the cost of counting, not of refusing.
  const library = new RateLimiterPostgres({
    storeClient: pool,
    storeType: 'pool',
    tableName: 'rate_limits',
    tableCreated: true,
    keyPrefix: 'rl:lib',
    points: 1e9,
    duration: 60,
  });
  const ours = createPostgresRateLimiter(pool);
  const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
  });
  redis.on('error', () => undefined);
  const redisUp = await redis.connect().then(
    () => true,
    () => false,
  );
  const inRedis = redisUp ? createRedisRateLimiter(redis, { keyPrefix: `bench-rl-${process.pid}` }) : null;
  const results: Record<string, { perSecond: number; cpuMsPerCall: number }[]> = {
    library: [],
    ours: [],
    ...(inRedis ? { 'ours-redis': [] } : {}),
  };
  for (let r = 0; r < ROUNDS; r++) {
    results.library.push(await round((key) => library.consume(`${key}-${r}`, 1)));
    // Fresh subjects each round, so none is refused.
    results.ours.push(await round((key) => ours.consume('reads', `${key}-${r}`)));
    if (inRedis) results['ours-redis'].push(await round((key) => inRedis.consume('reads', `${key}-${r}`)));
  }
  await pool.end();
  redis.disconnect();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const [name, rs] of Object.entries(results)) {
    console.log(
      `LIMITER ${name}: ${fmt(median(rs.map((x) => x.perSecond)))} consumes/s, Node CPU ${median(rs.map((x) => x.cpuMsPerCall)).toFixed(3)} ms/consume (rounds: ${rs.map((x) => fmt(x.perSecond)).join(', ')})`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
