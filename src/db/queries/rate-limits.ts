import type { Queryable } from '../pool';

/** One key's ask: `demand` slots for requests waiting now, up to `extra` more for requests to come. */
export interface RateLimitTake {
  key: string;
  demand: number;
  extra: number;
  limit: number;
  durationMs: number;
}

/** The key's count after the take, when its window ends (epoch ms) and how many slots were granted. */
export interface RateLimitGrant {
  points: number;
  expire: number;
  granted: number;
}

/** An unspent tail of a lease: `count` slots ending at `end` in the window ending at `expire`. */
export interface RateLimitTail {
  key: string;
  end: number;
  expire: number;
  count: number;
}

/**
 * Slots taken from fixed windows for several keys in one statement, atomically per key (a new
 * window starts when the stored one has expired). With `a` slots left in the window, a key is
 * granted min(demand, a), plus extra slots only while more than `nearLimit` would stay free, and at
 * most a `1/spread` of what lies above that: near the limit each request takes its one slot from
 * the table. A count never passes the limit. Same table as rate-limiter-flexible's
 * RateLimiterPostgres (`rate_limits`); rows are taken in key order, so batches cannot deadlock.
 */
export async function takeRateLimitSlots(
  db: Queryable,
  steps: RateLimitTake[],
  policy: { nearLimit: number; spread: number },
): Promise<Map<string, RateLimitGrant>> {
  const now = Date.now();
  // grant(a) for a slots left; written once per branch (a new row, an existing row).
  const grant = (a: string) =>
    `LEAST(i.d, ${a}) + LEAST(i.x, GREATEST(0, (${a} - LEAST(i.d, ${a}) - $7) / $8))`;
  const res = await db.query<{ key: string; points: number; expire: string; granted: number }>({
    name: 'rl_take_batch',
    text: `WITH i AS (
             SELECT * FROM unnest($1::text[], $2::int[], $3::int[], $4::int[], $5::bigint[]) AS i(k, d, x, l, e)
           )
           INSERT INTO rate_limits AS r (key, points, expire, granted)
           SELECT i.k, g.g, i.e, g.g FROM i, LATERAL (SELECT ${grant('i.l')} AS g) g ORDER BY i.k
           ON CONFLICT (key) DO UPDATE SET (points, expire, granted) = (
             SELECT w.base + g.g, w.ends, g.g
             FROM i,
               LATERAL (SELECT CASE WHEN r.expire <= $6 THEN 0 ELSE r.points END AS base,
                               CASE WHEN r.expire <= $6 THEN EXCLUDED.expire ELSE r.expire END AS ends) w,
               LATERAL (SELECT ${grant('GREATEST(0, i.l - w.base)')} AS g) g
             WHERE i.k = EXCLUDED.key)
           RETURNING key, points, expire, granted`,
    values: [
      steps.map((s) => s.key),
      steps.map((s) => s.demand),
      steps.map((s) => s.extra),
      steps.map((s) => s.limit),
      steps.map((s) => now + s.durationMs),
      now,
      policy.nearLimit,
      policy.spread,
    ],
  });
  return new Map(
    res.rows.map((row) => [
      row.key,
      { points: row.points, expire: Number(row.expire), granted: row.granted },
    ]),
  );
}

/**
 * Gives unspent tails back, each only if its lease is still the newest of its window (the count
 * still ends where the lease ended): slots nobody else was handed after ours, so no place in the
 * countdown is shown twice. Rows are locked in key order, like takes. Answers the keys taken back.
 */
export async function giveBackRateLimitSlots(db: Queryable, tails: RateLimitTail[]): Promise<Set<string>> {
  const res = await db.query<{ key: string }>({
    name: 'rl_give_back',
    text: `WITH t AS (
             SELECT * FROM unnest($1::text[], $2::int[], $3::bigint[], $4::int[]) AS t(k, p, e, n)
           ), locked AS (
             SELECT r.key, t.n FROM rate_limits r JOIN t ON r.key = t.k AND r.points = t.p AND r.expire = t.e
             ORDER BY r.key FOR UPDATE OF r
           )
           UPDATE rate_limits r SET points = r.points - locked.n FROM locked WHERE r.key = locked.key
           RETURNING r.key`,
    values: [
      tails.map((t) => t.key),
      tails.map((t) => t.end),
      tails.map((t) => t.expire),
      tails.map((t) => t.count),
    ],
  });
  return new Set(res.rows.map((row) => row.key));
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
