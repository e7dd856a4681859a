import type { Pool } from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';

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
}

/**
 * Counters live in PostgreSQL so several API processes enforce one budget. Should the store
 * fail, an in-memory insurance limiter keeps limits per process rather than failing requests.
 */
export function createPostgresRateLimiter(pool: Pool, options: { disabled?: boolean } = {}): RateLimiter {
  const limiters = new Map<RateLimitCategory, RateLimiterPostgres>();
  let first = true;
  for (const [category, spec] of Object.entries(RATE_LIMIT_CATEGORIES) as [RateLimitCategory, (typeof RATE_LIMIT_CATEGORIES)[RateLimitCategory]][]) {
    limiters.set(
      category,
      new RateLimiterPostgres({
        storeClient: pool,
        storeType: 'pool',
        tableName: 'rate_limits',
        tableCreated: true,
        keyPrefix: `rl:${category}`,
        points: spec.points,
        duration: spec.durationSec,
        // Rows expired over an hour ago are deleted every 5 minutes (one shared table, so one
        // limiter per process does it; the timer is unref'd and never keeps the process alive).
        clearExpiredByTimeout: first,
        insuranceLimiter: new RateLimiterMemory({ keyPrefix: `rlmem:${category}`, points: spec.points, duration: spec.durationSec }),
      }),
    );
    first = false;
  }
  return {
    async consume(category, subject) {
      const spec = RATE_LIMIT_CATEGORIES[category];
      const retryAfterFixed = 'retryAfterSec' in spec ? spec.retryAfterSec : undefined;
      const toDecision = (res: RateLimiterRes, allowed: boolean): RateLimitDecision => ({
        allowed,
        limit: spec.points,
        remaining: Math.max(0, res.remainingPoints),
        resetAt: Math.ceil((Date.now() + res.msBeforeNext) / 1000),
        retryAfterSec: retryAfterFixed ?? Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
      });
      if (options.disabled) {
        return { allowed: true, limit: spec.points, remaining: spec.points, resetAt: Math.ceil(Date.now() / 1000) + spec.durationSec, retryAfterSec: 0 };
      }
      try {
        const res = await limiters.get(category)!.consume(subject, 1);
        return toDecision(res, true);
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return toDecision(rejection, false);
        throw rejection;
      }
    },
  };
}
