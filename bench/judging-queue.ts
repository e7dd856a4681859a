/**
 * The judging queue's fairness, measured (part `queue` of `npm run bench`; alone:
 * `BENCH_TEMPORAL_PORT=7266 npx tsx bench/judging-queue.ts`). A stack of its own (database
 * BENCH_DATABASE_NAME, default challenges_bench_queue; the worker with its default slots), then,
 * in one run, through the API:
 *
 *  1. alone: a victim's quick `tests` submission judged on an idle service (POST → result stored),
 *     the median of three;
 *  2. one flood judging alone: a sleeper (its one test sleeps SLEEP_MS) on the idle service;
 *  3. the flood: two owners, two agents each, submit 8 sleepers (all within their caps); once
 *     all 8 wait in the queue the victim submits the same quick submission: its wait.
 *
 * Target (issue 27): victim's wait ≤ 2 × alone + one flood judging. Prints one JSON line
 * `QUEUE_RESULT {...}`.
 */
import { Client } from 'pg';
import { newActiveChallenge, newAgent, newUser, openSession, type BenchAgent } from './lib/fixtures';
import { sleep } from './lib/processes';
import { startStack } from './lib/stack';

const TEMPORAL_PORT = Number(process.env.BENCH_TEMPORAL_PORT ?? 7266);
const DATABASE = process.env.BENCH_DATABASE_NAME ?? 'challenges_bench_queue';
const SLEEP_MS = Number(process.env.BENCH_QUEUE_SLEEP_MS ?? 3_000);

const SLEEPER = (i: number) =>
  `// sleeper ${i}\nexport function slowAdd(a: number, b: number): number {\n` +
  `  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${SLEEP_MS});\n  return a + b;\n}`;
const QUICK = (i: number) =>
  `// quick ${i}\nexport function add(a: number, b: number): number {\n  return a + b;\n}`;

async function main(): Promise<void> {
  const stack = await startStack({ label: 'bench-queue', database: DATABASE, temporalPort: TEMPORAL_PORT });
  const db = new Client({ connectionString: stack.databaseUrl });
  await db.connect();
  try {
    const api = stack.client;
    const admin = await newUser('admin');
    const floodChallenge = await newActiveChallenge(api, admin, {
      judge: {
        kind: 'tests',
        timeout_ms_per_test: 10_000,
        tests: [{ name: 'adds', export: 'slowAdd', args: [2, 3], expected: 5 }],
      },
    });
    const quickChallenge = await newActiveChallenge(api, admin, {
      judge: { kind: 'tests', tests: [{ name: 'adds', export: 'add', args: [2, 3], expected: 5 }] },
    });

    const statusOf = async (ids: string[]) => {
      const rows = await db.query<{ status: string; n: number }>(
        `SELECT status, count(*)::int AS n FROM submissions WHERE id = ANY($1::uuid[]) GROUP BY status`,
        [ids],
      );
      return Object.fromEntries(rows.rows.map((row) => [row.status, row.n])) as Record<string, number>;
    };
    const post = async (agent: BenchAgent, session: string, content: string): Promise<string> => {
      const res = await api.expect(201, 'POST', `/api/v1/sessions/${session}/submissions`, {
        auth: agent.tokens[0],
        body: { content: 'bench', files: [{ path: 'index.ts', content }] },
      });
      return res.data.id;
    };
    /** POST → `complete` (read from the database every 20 ms), in ms. */
    const judged = async (agent: BenchAgent, session: string, content: string): Promise<number> => {
      const started = performance.now();
      const id = await post(agent, session, content);
      for (;;) {
        const byStatus = await statusOf([id]);
        if (byStatus.complete || byStatus.failed) {
          if (byStatus.failed) throw new Error(`submission ${id} failed`);
          return performance.now() - started;
        }
        if (performance.now() - started > 300_000) throw new Error(`submission ${id} not judged in 300 s`);
        await sleep(20);
      }
    };

    const victim = await newAgent(api, await newUser());
    const victimSession = await openSession(api, victim.tokens[0], quickChallenge);
    // Warm-up (first judging of the worker), not counted.
    await judged(victim, victimSession, QUICK(-1));
    const alone: number[] = [];
    for (let i = 0; i < 3; i++) alone.push(await judged(victim, victimSession, QUICK(i)));
    alone.sort((a, b) => a - b);
    const aloneMs = alone[1];

    const sleeperOwner = await newAgent(api, await newUser());
    const floodJudgingMs = await judged(
      sleeperOwner,
      await openSession(api, sleeperOwner.tokens[0], floodChallenge),
      SLEEPER(-1),
    );

    const flooders: BenchAgent[] = [];
    for (let owner = 0; owner < 2; owner++) {
      const user = await newUser();
      flooders.push(await newAgent(api, user), await newAgent(api, user));
    }
    const sessions = await Promise.all(
      flooders.map((agent) => openSession(api, agent.tokens[0], floodChallenge)),
    );
    const floodStarted = performance.now();
    const flood = await Promise.all(
      Array.from({ length: 8 }, (_, i) => post(flooders[i % 4], sessions[i % 4], SLEEPER(i))),
    );
    // All 8 past admission's door (status `judging`: waiting in the queue or running).
    for (;;) {
      const byStatus = await statusOf(flood);
      if ((byStatus.judging ?? 0) + (byStatus.complete ?? 0) === flood.length) break;
      await sleep(20);
    }
    await sleep(300);
    const floodDoneBefore = (await statusOf(flood)).complete ?? 0;
    const victimWaitMs = await judged(victim, victimSession, QUICK(100));
    const floodDoneAtVictim = (await statusOf(flood)).complete ?? 0;
    for (;;) {
      const byStatus = await statusOf(flood);
      if ((byStatus.complete ?? 0) + (byStatus.failed ?? 0) === flood.length) break;
      await sleep(100);
    }
    const floodTotalMs = performance.now() - floodStarted;
    const slots = await db.query<{ slots: number }>(
      `SELECT COALESCE(sum(slots), 0)::int AS slots FROM judging_workers`,
    );
    const targetMs = 2 * aloneMs + floodJudgingMs;
    process.stdout.write(
      `QUEUE_RESULT ${JSON.stringify({
        aloneMs,
        aloneRunsMs: alone,
        floodJudgingMs,
        victimWaitMs,
        targetMs,
        ok: victimWaitMs <= targetMs,
        floodDoneBefore,
        floodDoneAtVictim,
        floodTotalMs,
        slots: slots.rows[0].slots,
        sleepMs: SLEEP_MS,
      })}\n`,
    );
  } finally {
    await db.end();
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
