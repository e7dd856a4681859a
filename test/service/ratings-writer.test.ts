/**
 * The single writer of a weight class's ratings on PostgreSQL (ratings.ts applyPendingRatings):
 * every pending complete rated match applied exactly once, in completion order, when two writers
 * race, when matches complete while writers run, and when a writer dies mid-batch. Its own scratch
 * database (no worker acts on these matches); the expected ratings are openskill applied one
 * match at a time in `completed_seq` order.
 */
import type { Pool, PoolClient } from 'pg';
import { createPool, withTransaction } from '../../src/db/pool';
import { lockWeightClassRatings } from '../../src/db/queries/ratings';
import { applyPendingRatings } from '../../src/domain/matches/ratings';
import { INITIAL_SKILL, rateMatch, type Skill } from '../../src/domain/matches/rules';
import { scratchDatabase } from '../helpers/scratch-database';

const scratch = scratchDatabase('ratings_writer');
let pool: Pool;
let challengeId: string;
let agents: string[];
let ownerId: string;

beforeAll(async () => {
  await scratch.create();
  // The service's own pool: its clients listen for errors, as the writer's do in production (the
  // crash test below terminates a backend; a raw Pool's checked-out client then threw an unhandled
  // 'error' event now and then, failing the whole file: CI, 29 Nov).
  pool = createPool(scratch.url, 6);
  ownerId = (
    await pool.query<{ id: string }>(
      `INSERT INTO users (subject, name, role) VALUES ('test|ratings-writer', 'Owner', 'user') RETURNING id`,
    )
  ).rows[0].id;
  agents = (
    await pool.query<{ id: string }>(
      `INSERT INTO agents (owner_user_id, name) SELECT $1, 'rw-' || g FROM generate_series(1, 6) g RETURNING id`,
      [ownerId],
    )
  ).rows.map((r) => r.id);
  challengeId = (
    await pool.query<{ id: string }>(
      `INSERT INTO challenges (title, description, category, format, weight_class_id, status, time_limit_minutes,
                               starts_at, ends_at, judge, match, published_at)
       VALUES ('Ratings writer', 'Test.', 'test', 'head_to_head', 'rw-none', 'active', 1,
               now() - interval '1 hour', now() + interval '1 day', $1, $2, now()) RETURNING id`,
      [
        JSON.stringify({
          kind: 'rubric',
          criteria: [{ name: 'a', weight: 1, check: { type: 'contains', value: 'x' } }],
        }),
        JSON.stringify({ players: 2, rated: true }),
      ],
    )
  ).rows[0].id;
}, 120_000);

afterAll(async () => {
  await pool?.end();
  await scratch.drop();
});

/**
 * Completes `n` rated matches of `weightClass` as the service does: under the class's lock, each
 * taking the next `completed_seq`; pair i plays agents (i, i + 1 + i % 3) mod 6, seat 1 wins.
 */
async function completeMatches(weightClass: string, n: number, from = 0): Promise<void> {
  await withTransaction(pool, async (tx) => {
    await lockWeightClassRatings(tx, weightClass);
    for (let i = from; i < from + n; i++) {
      const a = agents[i % 6];
      const b = agents[(i + 1 + (i % 3)) % 6];
      const m = await tx.query<{ id: string }>(
        `INSERT INTO matches (challenge_id, weight_class_id, kind, status, rated, origin, started_at, ends_at,
                              bout_ended_at, completed_at, completed_seq)
         VALUES ($1, $2, 'bout', 'complete', true, 'exhibition', now(), now(), now(), now(), nextval('match_completed_seq'))
         RETURNING id`,
        [challengeId, weightClass],
      );
      await tx.query(
        `INSERT INTO match_participants (match_id, agent_id, seat, owner_user_id, score, rank, outcome)
         VALUES ($1, $2, 1, $4, 100, 1, 'win'), ($1, $3, 2, $4, 0, 2, 'loss')`,
        [m.rows[0].id, a, b, ownerId],
      );
    }
  });
}

interface Applied {
  match_id: string;
  completed_seq: string;
  winner: string;
  loser: string;
  winner_before: { mu: number; sigma: number };
  winner_after: { mu: number; sigma: number };
  loser_before: { mu: number; sigma: number };
  loser_after: { mu: number; sigma: number };
}

/** The class's matches in completion order with what the writer recorded on them. */
async function recorded(weightClass: string): Promise<Applied[]> {
  const res = await pool.query<Applied>(
    `SELECT m.id AS match_id, m.completed_seq,
            w.agent_id AS winner, l.agent_id AS loser,
            w.rating_before AS winner_before, w.rating_after AS winner_after,
            l.rating_before AS loser_before, l.rating_after AS loser_after
       FROM matches m
       JOIN match_participants w ON w.match_id = m.id AND w.seat = 1
       JOIN match_participants l ON l.match_id = m.id AND l.seat = 2
      WHERE m.weight_class_id = $1 ORDER BY m.completed_seq`,
    [weightClass],
  );
  return res.rows;
}

/**
 * Exactly once and in order: one rating_updates row per match; each participant's "before" is
 * what its previous match (in completion order) left, and the stored ratings and counts are
 * openskill applied one match at a time.
 */
async function expectAppliedOnceInOrder(weightClass: string, total: number): Promise<void> {
  const updates = await pool.query<{ n: number; distinct_n: number }>(
    'SELECT count(*)::int AS n, count(DISTINCT match_id)::int AS distinct_n FROM rating_updates WHERE weight_class_id = $1',
    [weightClass],
  );
  expect(updates.rows[0]).toEqual({ n: total, distinct_n: total });
  const rows = await recorded(weightClass);
  expect(rows).toHaveLength(total);
  const skills = new Map<string, Skill>();
  const counts = new Map<string, { matches: number; wins: number; losses: number }>();
  for (const row of rows) {
    const before = [skills.get(row.winner) ?? INITIAL_SKILL, skills.get(row.loser) ?? INITIAL_SKILL];
    const [w, l] = rateMatch([
      { skill: before[0], rank: 1 },
      { skill: before[1], rank: 2 },
    ]);
    expect(row.winner_before).toMatchObject({ mu: before[0].mu, sigma: before[0].sigma });
    expect(row.loser_before).toMatchObject({ mu: before[1].mu, sigma: before[1].sigma });
    expect(row.winner_after).toMatchObject({ mu: w.mu, sigma: w.sigma });
    expect(row.loser_after).toMatchObject({ mu: l.mu, sigma: l.sigma });
    skills.set(row.winner, w);
    skills.set(row.loser, l);
    const cw = counts.get(row.winner) ?? { matches: 0, wins: 0, losses: 0 };
    counts.set(row.winner, { ...cw, matches: cw.matches + 1, wins: cw.wins + 1 });
    const cl = counts.get(row.loser) ?? { matches: 0, wins: 0, losses: 0 };
    counts.set(row.loser, { ...cl, matches: cl.matches + 1, losses: cl.losses + 1 });
  }
  const stored = await pool.query<{
    agent_id: string;
    mu: number;
    sigma: number;
    matches: number;
    wins: number;
    losses: number;
  }>('SELECT agent_id, mu, sigma, matches, wins, losses FROM ratings WHERE weight_class_id = $1', [
    weightClass,
  ]);
  expect(stored.rows).toHaveLength(skills.size);
  for (const r of stored.rows) {
    expect({ mu: r.mu, sigma: r.sigma }).toEqual({
      mu: skills.get(r.agent_id)!.mu,
      sigma: skills.get(r.agent_id)!.sigma,
    });
    expect({ matches: r.matches, wins: r.wins, losses: r.losses }).toEqual(counts.get(r.agent_id));
  }
}

test('two writers racing apply each of 40 pending matches exactly once, in completion order', async () => {
  const wc = 'rw-race';
  await completeMatches(wc, 40);
  const [a, b] = await Promise.all([applyPendingRatings(pool, wc), applyPendingRatings(pool, wc)]);
  // One writer takes the whole batch; the other waits on the lock and finds nothing left.
  expect([a, b].sort((x, y) => x - y)).toEqual([0, 40]);
  await expectAppliedOnceInOrder(wc, 40);
  expect(await applyPendingRatings(pool, wc)).toBe(0);
});

test('matches completing while writers run are applied after the earlier ones, each once', async () => {
  const wc = 'rw-interleaved';
  await completeMatches(wc, 10, 0);
  const rounds = await Promise.all([
    applyPendingRatings(pool, wc),
    completeMatches(wc, 10, 10).then(() => applyPendingRatings(pool, wc)),
    completeMatches(wc, 10, 20),
    applyPendingRatings(pool, wc),
  ]);
  const last = await applyPendingRatings(pool, wc);
  const applied = [rounds[0], rounds[1], rounds[3], last] as number[];
  expect(applied.reduce((s, n) => s + n, 0)).toBe(30);
  await expectAppliedOnceInOrder(wc, 30);
});

test('a writer dying mid-batch (its connection killed before the ratings are written) applies nothing; the next writer applies all, once', async () => {
  const wc = 'rw-crash';
  await completeMatches(wc, 12);
  // A pool whose connection is terminated by the server when the batch reaches the ratings upsert:
  // the rating_updates rows and participants' before/after are written by then, uncommitted.
  const crashing = {
    connect: async (): Promise<PoolClient> => {
      const client = await pool.connect();
      const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
      (client as unknown as { query: unknown }).query = async (...args: unknown[]) => {
        if (typeof args[0] === 'string' && args[0].includes('INSERT INTO ratings')) {
          await query('SELECT pg_terminate_backend(pg_backend_pid())');
        }
        return query(...args);
      };
      return client;
    },
  } as unknown as Pool;
  await expect(applyPendingRatings(crashing, wc)).rejects.toThrow();

  const nothing = await pool.query<{ updates: number; changed: number; ratings: number }>(
    `SELECT (SELECT count(*)::int FROM rating_updates WHERE weight_class_id = $1) AS updates,
            (SELECT count(*)::int FROM match_participants p JOIN matches m ON m.id = p.match_id
              WHERE m.weight_class_id = $1 AND p.rating_after IS NOT NULL) AS changed,
            (SELECT count(*)::int FROM ratings WHERE weight_class_id = $1) AS ratings`,
    [wc],
  );
  expect(nothing.rows[0]).toEqual({ updates: 0, changed: 0, ratings: 0 });

  await completeMatches(wc, 3, 12);
  expect(await applyPendingRatings(pool, wc)).toBe(15);
  await expectAppliedOnceInOrder(wc, 15);
});
