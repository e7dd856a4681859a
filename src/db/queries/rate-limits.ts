import type { Queryable } from '../pool';

/**
 * One fixed-window counter step, atomically: the window's count after adding `points` (a new
 * window starts when the stored one has expired) and when the window ends (epoch ms). Same table
 * and semantics as rate-limiter-flexible's RateLimiterPostgres (`rate_limits`), but a named
 * statement: parsed and planned once per connection instead of on every request
 * (docs/benchmarks.md, "Rate limiter").
 */
export async function consumeRateLimitPoints(
  db: Queryable,
  key: string,
  points: number,
  durationMs: number,
): Promise<{ points: number; expire: number }> {
  const now = Date.now();
  const res = await db.query<{ points: number; expire: string }>({
    name: 'rl_consume',
    text: `INSERT INTO rate_limits (key, points, expire) VALUES ($1, $2, $3)
           ON CONFLICT (key) DO UPDATE SET
             points = CASE WHEN rate_limits.expire <= $4 THEN $2 ELSE rate_limits.points + $2 END,
             expire = CASE WHEN rate_limits.expire <= $4 THEN $3 ELSE rate_limits.expire END
           RETURNING points, expire`,
    values: [key, points, now + durationMs, now],
  });
  return { points: res.rows[0].points, expire: Number(res.rows[0].expire) };
}

/** Windows that ended over an hour ago (a periodic sweep of the shared table). */
export async function deleteExpiredRateLimits(db: Queryable, olderThanMs = 3_600_000): Promise<void> {
  await db.query('DELETE FROM rate_limits WHERE expire < $1', [Date.now() - olderThanMs]);
}
