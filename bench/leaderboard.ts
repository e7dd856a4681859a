/**
 * Leaderboard read benchmark (on demand, not part of jest):
 *
 *   npx tsx bench/leaderboard.ts
 *
 * Needs only PostgreSQL (DATABASE_URL's server; Temporal is not used). Recreates its own database
 * (BENCH_DATABASE_NAME, default challenges_bench_leaderboard), seeds one active challenge with
 * BENCH_AGENTS (default 10,000) agents, each with scored results, straight into the tables, builds
 * the leaderboard rows with the same refresh the judge uses, starts the API as its own process
 * (bench/lib/processes.ts; rate limits off) and times GET /api/v1/leaderboards/{id} over real HTTP: first pages, pages deep in
 * the board (through real cursors), both page sizes, then the CSV export of the whole board.
 */
import path from 'node:path';
import { Client } from 'pg';
import { seedLeaderboardBoard } from './lib/fixtures';
import { migrate } from '../src/db/migrate';
import { apiProcess, freePort, ROOT } from './lib/processes';

const DB_NAME = process.env.BENCH_DATABASE_NAME ?? 'challenges_bench_leaderboard';
const SERVER_URL = (process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/challenges').replace(
  /\/[^/]*$/,
  '',
);
const DATABASE_URL = `${SERVER_URL}/${DB_NAME}`;
const AGENTS = Number(process.env.BENCH_AGENTS ?? 10_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function summary(values: number[]): string {
  const s = [...values].sort((a, b) => a - b);
  return `n=${s.length} p50=${percentile(s, 50).toFixed(2)} ms p90=${percentile(s, 90).toFixed(2)} ms p99=${percentile(s, 99).toFixed(2)} ms max=${s[s.length - 1].toFixed(2)} ms`;
}

async function seed(db: Client): Promise<string> {
  const t0 = performance.now();
  const challenge = await db.query<{ id: string }>(
    `INSERT INTO challenges (title, category, format, weight_class_id, status, judge)
     VALUES ('leaderboard bench', 'coding', 'solo', 'open', 'active', '{"kind":"rubric","criteria":[]}') RETURNING id`,
  );
  const challengeId = challenge.rows[0].id;
  await db.query(`INSERT INTO users (subject, name) VALUES ('bench|owner', 'bench')`);
  const owner = (await db.query<{ id: string }>(`SELECT id FROM users WHERE subject = 'bench|owner'`)).rows[0]
    .id;
  await seedLeaderboardBoard(db, challengeId, owner, AGENTS, 'agent-');
  await db.query('VACUUM ANALYZE leaderboard_entries');
  await db.query('ANALYZE');
  console.log(
    `seeded ${AGENTS} agents (${AGENTS * 2} results) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  return challengeId;
}

async function main(): Promise<void> {
  const admin = new Client({ connectionString: `${SERVER_URL}/postgres` });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${DB_NAME}" WITH (FORCE)`);
  await admin.end();
  await migrate(DATABASE_URL);
  const seedClient = new Client({ connectionString: DATABASE_URL });
  await seedClient.connect();
  const challengeId = await seed(seedClient);

  // The API runs as its own process (bench/lib): the requests below never share its event loop.
  const port = await freePort();
  const api = apiProcess({
    env: {
      ...process.env,
      DATABASE_URL,
      PORT: String(port),
      RATE_LIMIT_DISABLED: '1',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'development',
    },
    logDir: path.join(ROOT, '.data/bench/logs'),
    name: 'api-leaderboard',
  });
  await api.start();
  const base = `http://127.0.0.1:${port}/api/v1/leaderboards/${challengeId}`;

  const get = async (query: string) => {
    const t0 = performance.now();
    const res = await fetch(`${base}${query}`);
    const body = (await res.json()) as {
      data: { rank: number }[];
      pagination: { next_cursor: string | null };
    };
    const ms = performance.now() - t0;
    if (res.status !== 200) throw new Error(`status ${res.status}`);
    return { ms, body };
  };

  try {
    // Walk the whole board once (limit 100) to collect real cursors at every depth, and check ranks.
    const cursors: string[] = [];
    let cursor: string | null = null;
    let rows = 0;
    do {
      const { body } = await get(`?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      for (const e of body.data) if (e.rank !== ++rows) throw new Error(`rank ${e.rank} at position ${rows}`);
      cursor = body.pagination.next_cursor;
      if (cursor) cursors.push(cursor);
    } while (cursor);
    console.log(`walked ${rows} rows in ${cursors.length + 1} pages; ranks contiguous`);

    for (let i = 0; i < 200; i++) await get(i % 2 ? '' : `?cursor=${cursors[i % cursors.length]}`); // warm-up

    const first: number[] = [];
    const deep: number[] = [];
    const all: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const limit = i % 3 === 0 ? 100 : 50;
      if (i % 4 === 0) {
        const { ms } = await get(`?limit=${limit}`);
        first.push(ms);
        all.push(ms);
      } else {
        const c = cursors[Math.floor(Math.random() * cursors.length)];
        const { ms } = await get(`?limit=${limit}&cursor=${c}`);
        deep.push(ms);
        all.push(ms);
      }
    }
    console.log(`\n[leaderboard] ${AGENTS} agents, GET over HTTP, sequential`);
    console.log(`  first page:       ${summary(first)}`);
    console.log(`  any depth (cursor): ${summary(deep)}`);
    console.log(`  all requests:     ${summary(all)}`);

    // Concurrency 8 (throughput view).
    const concurrent: number[] = [];
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = 0; i < REQUESTS / 8; i++) {
          const c = cursors[Math.floor(Math.random() * cursors.length)];
          concurrent.push((await get(`?cursor=${c}`)).ms);
        }
      }),
    );
    console.log(
      `  8 concurrent clients: ${summary(concurrent)}; ${((concurrent.length * 1000) / (performance.now() - t0)).toFixed(0)} req/s`,
    );

    const explain = await seedClient.query(
      `EXPLAIN (ANALYZE, BUFFERS) SELECT l.agent_id FROM leaderboard_entries l WHERE l.challenge_id = $1 AND l.best_score <= 50
       AND (l.best_score < 50 OR (l.best_reached_at, l.agent_id) > (now(), '00000000-0000-0000-0000-000000000000'::uuid))
       ORDER BY l.best_score DESC, l.best_reached_at, l.agent_id LIMIT 51`,
      [challengeId],
    );
    console.log(
      `\n  mid-board page plan: ${explain.rows
        .map((r) => r['QUERY PLAN'])
        .filter((l: string) => /Index|Execution/.test(l))
        .map((l: string) => l.trim())
        .join(' | ')}`,
    );

    const csvStart = performance.now();
    const csv = await fetch(`${base}/export.csv`);
    const text = await csv.text();
    console.log(
      `  CSV export: ${text.split('\r\n').length - 2} rows, ${(text.length / 1024).toFixed(0)} KiB in ${(performance.now() - csvStart).toFixed(0)} ms`,
    );
  } finally {
    await api.stop();
    await seedClient.end();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
