/**
 * A/B of the read path on a loaded machine: this tree's API against another tree's API (BENCH_AB_OTHER,
 * e.g. an export of the previous commit with node_modules linked), both on one stack and database,
 * driven alternately in short rounds by the same load generator, so load that drifts during the run
 * falls on both alike. Reports per variant the API process's CPU per answered request (median of the
 * rounds) and req/s: the challenge list with real tokens (limiter on), the leaderboard's first page
 * (real tokens) and its 304.
 *
 *   BENCH_AB_OTHER=/tmp/perf-before BENCH_TEMPORAL_PORT=7351 npx tsx bench/ab-reads.ts
 */
import path from 'node:path';
import { Client } from 'pg';
import { manyTokens, newActiveChallenge, newUser, seedLeaderboardBoard } from './lib/fixtures';
import { runLoad } from './lib/loadgen';
import { loadAverage } from './lib/machine';
import { freePort, ManagedProcess } from './lib/processes';
import { startStack } from './lib/stack';

const OTHER = process.env.BENCH_AB_OTHER;
const ROUNDS = Number(process.env.BENCH_AB_ROUNDS ?? 5);
const ROUND_MS = Number(process.env.BENCH_AB_ROUND_MS ?? 3000);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function main(): Promise<void> {
  if (!OTHER) throw new Error('BENCH_AB_OTHER (the other tree) is required');
  const stack = await startStack({
    label: 'bench-ab',
    database: process.env.BENCH_DATABASE_NAME ?? 'challenges_bench_ab',
    temporalPort: Number(process.env.BENCH_TEMPORAL_PORT ?? 7266),
  });
  const port = await freePort();
  const other = new ManagedProcess({
    name: 'api-other',
    command: process.execPath,
    args: ['--import', 'tsx', path.join(OTHER, 'src/api/server.ts')],
    env: { ...process.env, ...stack.env, PORT: String(port) },
    logFile: path.join(stack.logDir, 'api-other.log'),
    ready: { kind: 'http', url: `http://127.0.0.1:${port}/healthz` },
  });
  await other.start();
  try {
    const admin = await newUser('admin');
    for (let i = 0; i < 25; i++) await newActiveChallenge(stack.client, admin, { title: `AB ${i}` });
    const boardId = await newActiveChallenge(stack.client, admin, { title: 'AB board' });
    const db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    await db.query(`INSERT INTO users (subject, name) VALUES ('bench|ab-owner', 'bench')`);
    const owner = (await db.query<{ id: string }>(`SELECT id FROM users WHERE subject = 'bench|ab-owner'`))
      .rows[0].id;
    await seedLeaderboardBoard(db, boardId, owner, 2000, 'ab-agent-');
    await db.query('VACUUM ANALYZE');
    await db.end();

    const variants = [
      { name: 'this tree', url: stack.apiUrl, pid: stack.api.pid },
      { name: 'other tree', url: `http://127.0.0.1:${port}`, pid: other.pid },
    ];
    const board = `/api/v1/leaderboards/${boardId}`;
    const etags = new Map<string, string>();
    for (const v of variants) {
      const res = await fetch(`${v.url}${board}`);
      etags.set(v.name, res.headers.get('etag') ?? '');
      await res.arrayBuffer();
    }
    type Sample = { cpu: number; rps: number; p99: number };
    const samples = new Map<string, Sample[]>();
    const add = (key: string, s: Sample) => samples.set(key, [...(samples.get(key) ?? []), s]);
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? variants : [...variants].reverse();
      for (const v of order) {
        const tokens = await manyTokens(stack.client, 48);
        const auth = tokens.map((t) => ({ authorization: `Bearer ${t}` }));
        const spec = { connections: 16, durationMs: ROUND_MS, warmupMs: 500, maxRequests: 500_000 };
        const list = await runLoad(
          {
            url: `${v.url}/api/v1/challenges`,
            paths: ['/api/v1/challenges'],
            headerSets: auth,
            ...spec,
          },
          v.pid,
        );
        add(`${v.name} | list (token, limiter on)`, {
          cpu: list.cpuPerRequestMs.server,
          rps: list.rps,
          p99: list.latency.p99,
        });
        const full = await runLoad(
          { url: `${v.url}${board}`, paths: [board], headerSets: auth, ...spec },
          v.pid,
        );
        add(`${v.name} | leaderboard page 200`, {
          cpu: full.cpuPerRequestMs.server,
          rps: full.rps,
          p99: full.latency.p99,
        });
        const revalidated = await runLoad(
          {
            url: `${v.url}${board}`,
            paths: [board],
            headerSets: auth.map((h) => ({ ...h, 'if-none-match': etags.get(v.name)! })),
            okStatuses: [304],
            ...spec,
          },
          v.pid,
        );
        add(`${v.name} | leaderboard page 304`, {
          cpu: revalidated.cpuPerRequestMs.server,
          rps: revalidated.rps,
          p99: revalidated.latency.p99,
        });
      }
      console.log(`round ${round + 1}/${ROUNDS} done, load ${loadAverage()}`);
    }
    for (const [key, s] of [...samples].sort()) {
      console.log(
        `${key}: API CPU/request median ${median(s.map((x) => x.cpu)).toFixed(3)} ms [${s.map((x) => x.cpu.toFixed(3)).join(' ')}]; ` +
          `req/s median ${median(s.map((x) => x.rps)).toFixed(0)}; p99 median ${median(s.map((x) => x.p99)).toFixed(1)} ms`,
      );
    }
  } finally {
    await other.stop();
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
