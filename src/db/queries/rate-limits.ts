import type { Queryable } from '../pool';

/**
 * Fixed-window counter steps for several keys in one statement, atomically per key: each key's
 * count after adding its points (a new window starts when the stored one has expired) and when
 * its window ends (epoch ms). Same table and semantics as rate-limiter-flexible's
 * RateLimiterPostgres (`rate_limits`). A named statement (planned once per connection); rows are
 * taken in key order, so two batches sharing keys cannot deadlock.
 */
export async function consumeRateLimitBatch(
  db: Queryable,
  steps: { key: string; points: number; durationMs: number }[],
): Promise<Map<string, { points: number; expire: number }>> {
  const now = Date.now();
  const res = await db.query<{ key: string; points: number; expire: string }>({
    name: 'rl_consume_batch',
    text: `INSERT INTO rate_limits (key, points, expire)
           SELECT k, p, e FROM unnest($1::text[], $2::int[], $3::bigint[]) AS t(k, p, e) ORDER BY k
           ON CONFLICT (key) DO UPDATE SET
             points = CASE WHEN rate_limits.expire <= $4 THEN EXCLUDED.points ELSE rate_limits.points + EXCLUDED.points END,
             expire = CASE WHEN rate_limits.expire <= $4 THEN EXCLUDED.expire ELSE rate_limits.expire END
           RETURNING key, points, expire`,
    values: [steps.map((s) => s.key), steps.map((s) => s.points), steps.map((s) => now + s.durationMs), now],
  });
  return new Map(res.rows.map((row) => [row.key, { points: row.points, expire: Number(row.expire) }]));
}

/** A key's count and window end as stored, without counting anything (null: no window yet). */
export async function readRateLimit(
  db: Queryable,
  key: string,
): Promise<{ points: number; expire: number } | null> {
  const res = await db.query<{ points: number; expire: string }>({
    name: 'rl_read',
    text: 'SELECT points, expire FROM rate_limits WHERE key = $1',
    values: [key],
  });
  const row = res.rows[0];
  return row ? { points: row.points, expire: Number(row.expire) } : null;
}

/** Windows that ended over an hour ago (a periodic sweep of the shared table). */
export async function deleteExpiredRateLimits(db: Queryable, olderThanMs = 3_600_000): Promise<void> {
  await db.query('DELETE FROM rate_limits WHERE expire < $1', [Date.now() - olderThanMs]);
}
