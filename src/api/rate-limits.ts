import type { Pool } from 'pg';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { consumeRateLimitBatch, deleteExpiredRateLimits, readRateLimit } from '../db/queries/rate-limits';

/** The spec's limits table (section 8) plus DESIGN.md's numbers for what it leaves open. */
export const RATE_LIMIT_CATEGORIES = {
  reads: { points: 200, durationSec: 60 },
  submissions: { points: 30, durationSec: 60 },
  sessions: { points: 60, durationSec: 60 },
  webhooks: { points: 20, durationSec: 3600 },
  tokenCreation: { points: 10, durationSec: 3600 },
  heartbeat: { points: 120, durationSec: 60 },
  stream: { points: 30, durationSec: 60 },
  /** The assigned-challenges poll; 429 carries Retry-After: 60. */
  assigned: { points: 30, durationSec: 60, retryAfterSec: 60 },
  /** Anonymous callers on public routes, per IP. */
  anonymous: { points: 60, durationSec: 60 },
  /** Web pages (HTML), per IP: apart from the API's budgets, so API calls never lock a person out of the site. */
  pages: { points: 300, durationSec: 60 },
  /** Everything else an authenticated caller does (agents, keys, admin, unknown routes). */
  default: { points: 200, durationSec: 60 },
} as const satisfies Record<string, { points: number; durationSec: number; retryAfterSec?: number }>;

export type RateLimitCategory = keyof typeof RATE_LIMIT_CATEGORIES;

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the window resets. */
  resetAt: number;
  retryAfterSec: number;
}

export interface RateLimiter {
  consume(category: RateLimitCategory, subject: string): Promise<RateLimitDecision>;
  /**
   * The budget as it stands, counting nothing (health and readiness probes report it, never spend
   * it). Never rejects: a store that does not answer within PEEK_WAIT_MS is reported as unknown
   * (the full budget), so a probe does not wait on it.
   */
  peek(category: RateLimitCategory, subject: string): Promise<RateLimitDecision>;
  /** Resolves once the shared store is connected (until then, per-process insurance limits apply). */
  whenReady?: () => Promise<void>;
}

/** The answer for a window in which `consumed` points are used (the current request included). */
function decide(category: RateLimitCategory, consumed: number, windowEndsAt: number): RateLimitDecision {
  const spec = RATE_LIMIT_CATEGORIES[category];
  const retryAfterFixed = 'retryAfterSec' in spec ? spec.retryAfterSec : undefined;
  const msBeforeNext = Math.max(0, windowEndsAt - Date.now());
  return {
    allowed: consumed <= spec.points,
    limit: spec.points,
    remaining: Math.max(0, spec.points - consumed),
    resetAt: Math.ceil(windowEndsAt / 1000),
    retryAfterSec: retryAfterFixed ?? Math.max(1, Math.ceil(msBeforeNext / 1000)),
  };
}

function unlimited(category: RateLimitCategory): RateLimitDecision {
  const spec = RATE_LIMIT_CATEGORIES[category];
  return {
    allowed: true,
    limit: spec.points,
    remaining: spec.points,
    resetAt: Math.ceil(Date.now() / 1000) + spec.durationSec,
    retryAfterSec: 0,
  };
}

type CategorySpec = (typeof RATE_LIMIT_CATEGORIES)[RateLimitCategory];

/** One limiter per rate-limit category, built from its spec. */
function perCategory<L>(
  make: (category: RateLimitCategory, spec: CategorySpec) => L,
): Map<RateLimitCategory, L> {
  const entries = Object.entries(RATE_LIMIT_CATEGORIES) as [RateLimitCategory, CategorySpec][];
  return new Map(entries.map(([category, spec]) => [category, make(category, spec)]));
}

function insuranceLimiters(): Map<RateLimitCategory, RateLimiterMemory> {
  return perCategory(
    (category, spec) =>
      new RateLimiterMemory({
        keyPrefix: `rlmem:${category}`,
        points: spec.points,
        duration: spec.durationSec,
      }),
  );
}

/** How long a probe waits for the budget store before reporting the budget as unknown. */
const PEEK_WAIT_MS = 500;

/** `read` (counted points and window end, null: no open window) as a decision, bounded and never rejecting. */
async function peekDecision(
  category: RateLimitCategory,
  read: () => Promise<{ consumed: number; windowEndsAt: number } | null>,
): Promise<RateLimitDecision> {
  let timer: NodeJS.Timeout | undefined;
  const state = await Promise.race([
    read().catch(() => null),
    new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), PEEK_WAIT_MS))),
  ]);
  clearTimeout(timer);
  if (!state || state.windowEndsAt <= Date.now()) return unlimited(category);
  // What the caller's next counted request would see; a probe itself is always allowed.
  return { ...decide(category, state.consumed, state.windowEndsAt), allowed: true };
}

/** Exhausted keys are refused from memory only in windows this short (seconds). */
const MAX_MEMORY_BLOCK_SEC = 60;
/** How often one process sweeps windows that ended over an hour ago from the shared table. */
const SWEEP_EVERY_MS = 5 * 60_000;

/**
 * Collects the counter steps requested during one turn of the event loop and writes them in one
 * statement (one round trip instead of one per request under load). A key asked for n times in a
 * batch is counted n at once, and its n callers get the n consecutive places ending at the new
 * count, so each still sees its own place in the shared countdown.
 */
function upsertBatcher(pool: Pool) {
  let pending: Map<
    string,
    {
      durationMs: number;
      waiters: { resolve: (v: { points: number; expire: number }) => void; reject: (e: unknown) => void }[];
    }
  > | null = null;
  const flush = async (batch: NonNullable<typeof pending>) => {
    try {
      const results = await consumeRateLimitBatch(
        pool,
        [...batch].map(([key, step]) => ({ key, points: step.waiters.length, durationMs: step.durationMs })),
      );
      for (const [key, step] of batch) {
        const result = results.get(key)!;
        step.waiters.forEach((w, i) =>
          w.resolve({ points: result.points - step.waiters.length + 1 + i, expire: result.expire }),
        );
      }
    } catch (err) {
      for (const step of batch.values()) for (const w of step.waiters) w.reject(err);
    }
  };
  return {
    consume(key: string, durationMs: number): Promise<{ points: number; expire: number }> {
      if (!pending) {
        const batch = (pending = new Map());
        setImmediate(() => {
          pending = null;
          void flush(batch);
        });
      }
      let step = pending.get(key);
      if (!step) pending.set(key, (step = { durationMs, waiters: [] }));
      const waiters = step.waiters;
      return new Promise((resolve, reject) => waiters.push({ resolve, reject }));
    },
  };
}

/**
 * Counters live in PostgreSQL so several API processes enforce one budget, exactly (one atomic
 * upsert per key; every allowed request sees its own place in the shared countdown). The requests
 * of one event-loop turn share one named statement (planned once per connection), and a key that has used its whole
 * budget is refused from memory until its window ends (it would be refused by the table anyway),
 * so a client hammering past its limit costs no database work. Should the store fail, an
 * in-memory insurance limiter keeps limits per process rather than failing requests.
 */
export function createPostgresRateLimiter(pool: Pool, options: { disabled?: boolean } = {}): RateLimiter {
  const insurance = insuranceLimiters();
  const batcher = upsertBatcher(pool);
  /** Exhausted keys → when their window ends (epoch ms). */
  const exhausted = new Map<string, number>();
  if (!options.disabled) {
    const sweep = setInterval(() => {
      void deleteExpiredRateLimits(pool).catch(() => undefined);
      const now = Date.now();
      for (const [key, until] of exhausted) if (until <= now) exhausted.delete(key);
    }, SWEEP_EVERY_MS);
    sweep.unref();
  }
  return {
    async consume(category, subject) {
      const spec = RATE_LIMIT_CATEGORIES[category];
      const decision = (consumed: number, windowEndsAt: number) => decide(category, consumed, windowEndsAt);
      if (options.disabled) return unlimited(category);
      const key = `rl:${category}:${subject}`;
      const blockedUntil = exhausted.get(key);
      if (blockedUntil !== undefined) {
        if (blockedUntil > Date.now()) return decision(spec.points + 1, blockedUntil);
        exhausted.delete(key);
      }
      let consumed: { points: number; expire: number };
      try {
        consumed = await batcher.consume(key, spec.durationSec * 1000);
      } catch {
        try {
          const res = await insurance.get(category)!.consume(subject, 1);
          return decision(spec.points - res.remainingPoints, Date.now() + res.msBeforeNext);
        } catch (rejection) {
          if (rejection instanceof RateLimiterRes)
            return decision(spec.points + 1, Date.now() + rejection.msBeforeNext);
          throw rejection;
        }
      }
      // Only minute windows: an operator who clears a row (e.g. an hourly token-creation budget)
      // waits at most that long for every process to let the caller in again.
      if (consumed.points >= spec.points && spec.durationSec <= MAX_MEMORY_BLOCK_SEC) {
        if (exhausted.size >= 100_000) exhausted.clear(); // bounded memory
        exhausted.set(key, consumed.expire);
      }
      return decision(consumed.points, consumed.expire);
    },
    async peek(category, subject) {
      if (options.disabled) return unlimited(category);
      const key = `rl:${category}:${subject}`;
      return peekDecision(category, async () => {
        const stored = await readRateLimit(pool, key);
        return stored && { consumed: stored.points, windowEndsAt: stored.expire };
      });
    },
  };
}

/**
 * The same budgets in Redis (when REDIS_URL is set): one atomic INCR-with-expiry per request,
 * shared by every API process like the PostgreSQL table, and no write transaction in PostgreSQL
 * per request (docs/benchmarks.md, "Rate limiter in Redis"). Exhausted keys are refused from memory until
 * their window ends; should Redis fail, the in-memory insurance limiter takes over.
 */
export function createRedisRateLimiter(redis: Redis): RateLimiter {
  const insurance = insuranceLimiters();
  const limiters = perCategory(
    (category, spec) =>
      new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `rl:${category}`,
        points: spec.points,
        duration: spec.durationSec,
        inMemoryBlockOnConsumed: spec.durationSec <= MAX_MEMORY_BLOCK_SEC ? spec.points + 1 : 0,
        insuranceLimiter: insurance.get(category),
      }),
  );
  return {
    async consume(category, subject) {
      const points = RATE_LIMIT_CATEGORIES[category].points;
      try {
        const res = await limiters.get(category)!.consume(subject, 1);
        return decide(category, points - res.remainingPoints, Date.now() + res.msBeforeNext);
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes)
          return decide(category, points + 1, Date.now() + rejection.msBeforeNext);
        throw rejection;
      }
    },
    peek: (category, subject) =>
      peekDecision(category, async () => {
        const res = await limiters.get(category)!.get(subject);
        return res && { consumed: res.consumedPoints, windowEndsAt: Date.now() + res.msBeforeNext };
      }),
    whenReady: () =>
      redis.status === 'ready'
        ? Promise.resolve()
        : new Promise((resolve) => redis.once('ready', () => resolve())),
  };
}
