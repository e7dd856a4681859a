/**
 * The judging queue's fairness between game matches and solo submissions, measured (part
 * `queuegames` of `npm run bench`; alone: `BENCH_TEMPORAL_PORT=7266 npx tsx bench/judging-queue-matches.ts`).
 * Issue 37 finding 4: game work counted against no owner, so a victim's 277 ms judging waited
 * 41 s behind 3 queued game matches. A stack of its own (database BENCH_DATABASE_NAME, default
 * challenges_bench_queue_games; the worker with 2 judging slots: one game match at a time), then,
 * in one run, through the API:
 *
 *  1. alone: a victim's quick `tests` submission judged on an idle service (POST → result
 *     stored), the median of three;
 *  2. one match alone: an exhibition between two validated connect-four players on the idle
 *     service (POST → complete), the median of three;
 *  3. the scenario: three owners with two validated agents each; one matchmaker round schedules
 *     their 3 matches (every owner has two seats queued; one match runs, two wait), then the
 *     victim (a fourth owner, nothing else queued) submits: its wait (POST → result stored).
 *
 * Target (issue 37): the victim's wait ≤ 2 × alone + one match. Prints one JSON line
 * `QUEUE_GAMES_RESULT {...}`.
 */
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { loadConfig } from '../src/config';
import { createPool } from '../src/db/pool';
import { createMatchmakingSteps } from '../src/domain/matches/matchmaking';
import { createLogger } from '../src/lib/logger';
import { lazyTemporalClient } from '../src/temporal-client/client';
import { newActiveChallenge, newAgent, newUser, openSession, type BenchAgent } from './lib/fixtures';
import { sleep } from './lib/processes';
import { startStack } from './lib/stack';

const TEMPORAL_PORT = Number(process.env.BENCH_TEMPORAL_PORT ?? 7266);
const DATABASE = process.env.BENCH_DATABASE_NAME ?? 'challenges_bench_queue_games';
/** A player's think time per move: a match of 2 connect-four games then takes a few seconds. */
const MOVE_MS = Number(process.env.BENCH_QUEUE_GAMES_MOVE_MS ?? 30);

/** Plays the first legal column after MOVE_MS. */
const PLAYER = `import json, sys, time
for line in sys.stdin:
    message = json.loads(line)
    if message.get("done"):
        break
    time.sleep(${MOVE_MS / 1000})
    print(json.dumps({"action": message["observation"]["legal_actions"][0]}), flush=True)
`;
const QUICK = (i: number) =>
  `// quick ${i}\nexport function add(a: number, b: number): number {\n  return a + b;\n}`;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const stack = await startStack({
    label: 'bench-queue-games',
    database: DATABASE,
    temporalPort: TEMPORAL_PORT,
    env: { JUDGE_SLOTS: '2' },
  });
  const db = new Client({ connectionString: stack.databaseUrl });
  await db.connect();
  const config = loadConfig({ ...process.env, ...stack.env });
  const pool = createPool(stack.databaseUrl, 4);
  const temporal = lazyTemporalClient(config);
  const deps = {
    db: pool,
    config,
    logger: createLogger('warn', 'bench-queue-games'),
    temporal: temporal.get,
  };
  const q = async <R extends object>(sql: string, params: unknown[] = []) =>
    (await db.query<R>(sql, params)).rows;
  const until = async (check: () => Promise<boolean>, what: string, timeoutMs = 300_000) => {
    const deadline = performance.now() + timeoutMs;
    while (!(await check())) {
      if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(20);
    }
  };
  try {
    const api = stack.client;
    const admin = await newUser('admin');
    const quickChallenge = await newActiveChallenge(api, admin, {
      judge: { kind: 'tests', tests: [{ name: 'adds', export: 'add', args: [2, 3], expected: 5 }] },
    });
    const gameChallenge = await newActiveChallenge(api, admin, {
      format: 'game',
      weight_class_id: 'bench-queue-games',
      judge: {
        kind: 'game',
        game: 'connect-four',
        turn_ms: 1_000,
        bank_ms: 5_000,
        memory_mb: 128,
        games_per_match: 2,
      },
      // A round at publish (nobody validated yet), the next a day later: the benchmark runs the
      // round that schedules the 3 matches itself, once every player is validated.
      match: { every_minutes: 1440, rematch_after_minutes: 0, max_per_agent_per_hour: 60 },
    });
    await until(
      async () =>
        (
          await q<{ n: number }>(
            `SELECT count(*)::int AS n FROM matchmaking_rounds WHERE challenge_id = $1`,
            [gameChallenge],
          )
        )[0].n > 0,
      'the first matchmaking round',
    );

    const statusOf = async (table: 'submissions' | 'matches', id: string) =>
      (await q<{ status: string }>(`SELECT status FROM ${table} WHERE id = $1`, [id]))[0]?.status;
    const post = async (agent: BenchAgent, session: string, path: string, content: string) =>
      (
        await api.expect(201, 'POST', `/api/v1/sessions/${session}/submissions`, {
          auth: agent.tokens[0],
          body: { content: 'bench', files: [{ path, content }] },
        })
      ).data.id as string;
    /** POST → `complete` (read from the database every 20 ms), in ms. */
    const judged = async (agent: BenchAgent, session: string, path: string, content: string) => {
      const started = performance.now();
      const id = await post(agent, session, path, content);
      await until(async () => ['complete', 'failed'].includes((await statusOf('submissions', id)) ?? ''), id);
      if ((await statusOf('submissions', id)) !== 'complete') throw new Error(`submission ${id} failed`);
      return performance.now() - started;
    };

    // 1. The victim alone (after a warm-up judging, not counted).
    const victim = await newAgent(api, await newUser());
    const victimSession = await openSession(api, victim.tokens[0], quickChallenge);
    await judged(victim, victimSession, 'index.ts', QUICK(-1));
    const aloneRuns: number[] = [];
    for (let i = 0; i < 3; i++) aloneRuns.push(await judged(victim, victimSession, 'index.ts', QUICK(i)));
    const aloneMs = median(aloneRuns);

    // The players: three owners, two agents each, validated (self-play) on the idle service.
    const players: BenchAgent[] = [];
    for (let owner = 0; owner < 3; owner++) {
      const user = await newUser();
      players.push(await newAgent(api, user), await newAgent(api, user));
    }
    await Promise.all(
      players.map(async (agent) =>
        judged(agent, await openSession(api, agent.tokens[0], gameChallenge), 'main.py', PLAYER),
      ),
    );

    // 2. One match alone: an exhibition of two of them (after a warm-up one, not counted).
    const exhibition = async () => {
      const started = performance.now();
      const res = await api.expect(201, 'POST', `/api/v1/admin/challenges/${gameChallenge}/matches`, {
        auth: admin.jwt,
        body: { agent_ids: [players[0].agentId, players[2].agentId], rated: false },
      });
      const id = res.data.id as string;
      await until(async () => ['complete', 'void'].includes((await statusOf('matches', id)) ?? ''), id);
      if ((await statusOf('matches', id)) !== 'complete')
        throw new Error(`exhibition ${id} did not complete`);
      return performance.now() - started;
    };
    await exhibition();
    const matchRuns: number[] = [];
    for (let i = 0; i < 3; i++) matchRuns.push(await exhibition());
    const matchMs = median(matchRuns);

    // 3. One round: 3 matches of the three owners queue up (one plays, two wait); then the victim.
    const lastRound = (
      await q<{ n: number }>(
        `SELECT COALESCE(max(round_no), 0)::int AS n FROM matchmaking_rounds WHERE challenge_id = $1`,
        [gameChallenge],
      )
    )[0].n;
    const round = await createMatchmakingSteps(deps).matchmakingRound({
      challengeId: gameChallenge,
      round: lastRound + 1,
    });
    if (round.matchIds.length !== 3)
      throw new Error(`the round scheduled ${round.matchIds.length} matches, not 3`);
    const matchKeys = round.matchIds.map((id) => `game-match:${id}`);
    const queued = async () =>
      (
        await q<{ waiting: number; running: number }>(
          `SELECT count(*) FILTER (WHERE state = 'waiting')::int AS waiting,
                  count(*) FILTER (WHERE state = 'running')::int AS running
             FROM judging_queue WHERE work_key = ANY($1)`,
          [matchKeys],
        )
      )[0];
    // The steady state the victim meets: one match plays (both slots), two wait.
    await until(async () => {
      const now = await queued();
      return now.running === 1 && now.waiting === 2;
    }, 'one match playing, two waiting');
    const atVictim = await queued();
    const victimWaitMs = await judged(victim, victimSession, 'index.ts', QUICK(100));
    const matchesDoneAtVictim = (
      await q<{ n: number }>(
        `SELECT count(*)::int AS n FROM matches WHERE id = ANY($1::uuid[]) AND status IN ('complete', 'void')`,
        [round.matchIds],
      )
    )[0].n;
    await until(
      async () =>
        (
          await q<{ n: number }>(
            `SELECT count(*)::int AS n FROM matches WHERE id = ANY($1::uuid[]) AND status IN ('complete', 'void')`,
            [round.matchIds],
          )
        )[0].n === 3,
      'the 3 matches to end',
    );
    const slots = await q<{ slots: number }>(
      `SELECT COALESCE(sum(slots), 0)::int AS slots FROM judging_workers`,
    );
    const targetMs = 2 * aloneMs + matchMs;
    process.stdout.write(
      `QUEUE_GAMES_RESULT ${JSON.stringify({
        aloneMs,
        aloneRunsMs: aloneRuns,
        matchMs,
        matchRunsMs: matchRuns,
        victimWaitMs,
        targetMs,
        ok: victimWaitMs <= targetMs,
        matchesWaitingAtVictim: atVictim.waiting,
        matchesRunningAtVictim: atVictim.running,
        matchesDoneAtVictim,
        slots: slots[0].slots,
        moveMs: MOVE_MS,
      })}\n`,
    );
  } finally {
    await db.end();
    await pool.end();
    await temporal.close();
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
