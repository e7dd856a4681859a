/**
 * The arena, measured (part `arena` of `npm run bench`; alone:
 * `BENCH_TEMPORAL_PORT=7266 npx tsx bench/arena.ts`). A stack of its own (database
 * BENCH_DATABASE_NAME, default challenges_bench_arena; the worker with 2 judging slots; the
 * arena's minute shortened to BOUT_MINUTE_MS, so a bout of `time_limit_minutes: 1` lasts at most
 * that long, and ends earlier once both participants opened and closed their sessions), then,
 * each figure beside its anchor in the same run:
 *
 *  1. matches scheduled and completed per second, played: MATCHES rated exhibitions between
 *     disjoint pairs of agents, created through the operator API at once; in each, both
 *     participants (as a connector would) open their bout session once the match runs, submit an
 *     answer, wait until it is judged (the rubric) and close the session; the match completes with
 *     placements. Measured from the first creation to the last completion. Anchor: the same match
 *     workflow for as many matches already complete (each step finds nothing to do): the
 *     service's workflow shape empty. Where the batch's time goes: each match's phases (created,
 *     running seen, sessions open and submitted, both judged, both closed, complete after the close),
 *     median and worst; the participants look at the database every BENCH_ARENA_PLAYER_POLL_MS (20),
 *     all of them in one statement per look (`statusWatcher`).
 *  2. rating updates per second: RATED complete rated matches of one weight class (written
 *     set-based) applied by the service's single writer (`applyPendingRatings`: lock, one
 *     `rating_updates` row, participants, ratings, in completion order). Anchor: openskill's
 *     update alone (`rateMatch`) for the same matches in memory.
 *  3. the matchmaker's round at ELIGIBLE eligible agents (ladder entries, online): one
 *     `matchmakingRound` (candidates, pair history, grouping, the round and its matches and
 *     participants written set-based in one transaction, their workflows started
 *     START_CONCURRENCY at a time). Anchors: the grouping alone (`planRound`), and starting as
 *     many empty workflows (an already void match each) the same way, which is the floor of the
 *     starts.
 *
 * Prints one JSON line `ARENA_RESULT {...}`.
 */
import { performance } from 'node:perf_hooks';
import { temporal as proto } from '@temporalio/proto';
import { Client, type Pool } from 'pg';
import { loadConfig } from '../src/config';
import { createPool } from '../src/db/pool';
import { applyPendingRatings } from '../src/domain/matches/ratings';
import { createMatchmakingSteps } from '../src/domain/matches/matchmaking';
import {
  INITIAL_SKILL,
  planRound,
  rateMatch,
  isProvisional,
  loadRatingLibrary,
  matchSettingsOf,
} from '../src/domain/matches/rules';
import { MATCH_WORKFLOW, matchWorkflowId, type MatchWorkflowInput } from '../src/domain/matches/contract';
import { START_CONCURRENCY } from '../src/domain/matches/schedule';
import { createLogger } from '../src/lib/logger';
import { ChallengeIdKey, MatchIdKey, MatchStatusKey } from '../src/temporal-client/search-attributes';
import { lazyTemporalClient } from '../src/temporal-client/client';
import {
  BENCH_RUBRIC,
  type BenchAgent,
  newAgent,
  newUser,
  openSession,
  submissionContent,
} from './lib/fixtures';
import { postgresCpuMs, processCpuMs, temporalServerPid } from './lib/machine';
import { sleep } from './lib/processes';
import { startStack } from './lib/stack';

const TEMPORAL_PORT = Number(process.env.BENCH_TEMPORAL_PORT ?? 7266);
const DATABASE = process.env.BENCH_DATABASE_NAME ?? 'challenges_bench_arena';
const MATCHES = Number(process.env.BENCH_ARENA_MATCHES ?? 40);
const RATED = Number(process.env.BENCH_ARENA_RATED ?? 1000);
const ELIGIBLE = Number(process.env.BENCH_ARENA_ELIGIBLE ?? 1000);
/** The arena's minute here: the longest a bout (`time_limit_minutes: 1`) may last; played bouts end sooner. */
const BOUT_MINUTE_MS = Number(process.env.BENCH_ARENA_BOUT_MS ?? 30_000);
/** How often a bench participant looks at its match's and submission's status in the database. */
const PLAYER_POLL_MS = Number(process.env.BENCH_ARENA_PLAYER_POLL_MS ?? 20);

/** Each played match's moments (ms from the batch's start), for where the batch's time goes. */
interface BoutTimes {
  created: number;
  running: number[];
  opened: number[];
  judged: number[];
  closed: number[];
  complete: number;
}
const PHASES: [string, (t: BoutTimes) => number][] = [
  ['created', (t) => t.created],
  ['running seen', (t) => Math.max(...t.running) - t.created],
  ['sessions open', (t) => Math.max(...t.opened) - Math.max(...t.running)],
  ['both judged', (t) => Math.max(...t.judged) - Math.max(...t.opened)],
  ['both closed', (t) => Math.max(...t.closed) - Math.max(...t.judged)],
  ['complete after close', (t) => t.complete - Math.max(...t.closed)],
];
const quantile = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
/** "created p50 120 / max 300 ms; running seen …": each phase's median and worst over the batch's matches. */
function phaseSummary(times: BoutTimes[]): string {
  return PHASES.map(([name, of]) => {
    const xs = times.map(of);
    return `${name} p50 ${Math.round(quantile(xs, 0.5))} / max ${Math.round(Math.max(...xs))} ms`;
  }).join('; ');
}

type WatchedTable = 'matches' | 'submissions';
interface StatusWaiter {
  table: WatchedTable;
  id: string;
  done: (status: string | undefined) => boolean;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * The participants' eyes: every `everyMs` one statement reads the status of every match and
 * submission some participant waits on, and wakes those whose condition holds. Eighty
 * participants each polling on their own (four of them at a time on the pool) kept PostgreSQL
 * busy on a 2-core machine with the observers' own reads, which the service then waited behind;
 * one read per tick keeps the same 20 ms resolution at 1/80 of the load.
 */
function statusWatcher(pool: Pool, everyMs: number) {
  const waiters = new Set<StatusWaiter>();
  let looking = false;
  const look = async () => {
    looking = true;
    try {
      while (waiters.size > 0) {
        const ids: Record<WatchedTable, string[]> = { matches: [], submissions: [] };
        for (const w of waiters) ids[w.table].push(w.id);
        const { rows } = await pool.query<{ id: string; status: string }>(
          `SELECT id::text, status FROM matches WHERE id = ANY($1::uuid[])
           UNION ALL
           SELECT id::text, status FROM submissions WHERE id = ANY($2::uuid[])`,
          [ids.matches, ids.submissions],
        );
        const statusOf = new Map(rows.map((r) => [r.id, r.status]));
        for (const w of [...waiters]) {
          if (!w.done(statusOf.get(w.id))) continue;
          waiters.delete(w);
          w.resolve();
        }
        if (waiters.size > 0) await sleep(everyMs);
      }
    } catch (err) {
      for (const w of waiters) w.reject(err);
      waiters.clear();
    } finally {
      looking = false;
    }
  };
  return (table: WatchedTable, id: string, done: (status: string | undefined) => boolean) =>
    new Promise<void>((resolve, reject) => {
      waiters.add({ table, id, done, resolve, reject });
      if (!looking) void look();
    });
}

/** Runs `make(i)` for i < n, `lanes` at a time, in order of i. */
async function inLanes<T>(n: number, lanes: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(lanes, n) }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await make(i);
      }
    }),
  );
  return out;
}

async function main(): Promise<void> {
  const stack = await startStack({
    label: 'bench-arena',
    database: DATABASE,
    temporalPort: TEMPORAL_PORT,
    // Looks every 5 s: a played bout's workflow is woken by its nudges (a session closed, a
    // submission judged); the matchmaker's 500 unplayed bouts look rarely while the round runs.
    env: { ARENA_MINUTE_MS: String(BOUT_MINUTE_MS), ARENA_POLL_MS: '5000', JUDGE_SLOTS: '2' },
    // BENCH_WORKER_NODE_ARGS="--cpu-prof --cpu-prof-dir=…": the worker's V8 CPU profile, as in bench/submissions.ts.
    workerNodeArgs: process.env.BENCH_WORKER_NODE_ARGS?.split(' ').filter(Boolean),
  });
  const db = new Client({ connectionString: stack.databaseUrl });
  await db.connect();
  const config = loadConfig({ ...process.env, ...stack.env });
  const pool = createPool(stack.databaseUrl, 4);
  const temporal = lazyTemporalClient(config);
  const deps = { db: pool, config, logger: createLogger('warn', 'bench-arena'), temporal: temporal.get };
  const q = async <R extends object>(sql: string, params: unknown[] = []) =>
    (await db.query<R>(sql, params)).rows;
  try {
    const api = stack.client;
    // CPU time of each process so far: the batch's share of it per played match says where it goes.
    const temporalPid = temporalServerPid(`127.0.0.1:${TEMPORAL_PORT}`);
    const cpuNow = () => {
      const own = process.cpuUsage();
      return {
        api: processCpuMs(stack.api.pid),
        worker: processCpuMs(stack.worker.pid),
        temporal: processCpuMs(temporalPid),
        postgres: postgresCpuMs(),
        bench: (own.user + own.system) / 1000,
      };
    };
    const admin = await newUser('admin');
    // Each agent its own owner, as on a real ladder: the matchmaker never groups one owner's
    // agents (policy.ts), so one owner for all made the round schedule nothing (issue 42).
    const newAgents = async (n: number, prefix: string, seen: boolean) =>
      (
        await q<{ id: string }>(
          `WITH u AS (
             INSERT INTO users (subject, name, role)
             SELECT 'bench|' || $1 || g, $1 || g, 'user' FROM generate_series(1, $2) g
             RETURNING id, name)
           INSERT INTO agents (owner_user_id, name, last_seen_at)
           SELECT u.id, u.name, CASE WHEN $3 THEN now() END FROM u
           RETURNING id`,
          [prefix, n, seen],
        )
      ).map((r) => r.id);
    const enter = (challengeId: string, agentIds: string[]) =>
      q(
        `INSERT INTO entries (challenge_id, agent_id, status, sandbox) SELECT $1, unnest($2::uuid[]), 'waiting', false`,
        [challengeId, agentIds],
      );

    // ---- 1. matches scheduled and completed per second (and the empty shape)
    const draft = await api.expect(201, 'POST', '/api/v1/admin/challenges', {
      auth: admin.jwt,
      body: {
        title: 'Bench arena',
        description: 'Bench.',
        category: 'bench',
        format: 'head_to_head',
        weight_class_id: 'bench-arena',
        time_limit_minutes: 1,
        judge: BENCH_RUBRIC,
        match: { every_minutes: 1440, max_per_agent_per_hour: 60 },
      },
    });
    const challengeId: string = draft.data.id;
    await api.expect(200, 'POST', `/api/v1/admin/challenges/${challengeId}/publish`, { auth: admin.jwt });
    const terminal = async (ids: string[]) =>
      (
        await q<{ n: number }>(
          `SELECT count(*)::int AS n FROM matches WHERE id = ANY($1::uuid[]) AND status IN ('complete', 'void')`,
          [ids],
        )
      )[0].n;
    const until = async (check: () => Promise<boolean>) => {
      while (!(await check())) await sleep(PLAYER_POLL_MS);
    };
    const untilStatus = statusWatcher(pool, PLAYER_POLL_MS);
    /** A participant (one user each: token creation is limited per user), entered in the challenge. */
    const newPlayer = async (i: number, tag: string): Promise<BenchAgent> => {
      const user = await newUser('user');
      const agent = await newAgent(api, user, { name: `bench-p-${tag}-${i}` });
      await api.expect(201, 'POST', `/api/v1/challenges/${challengeId}/entries`, {
        auth: user.jwt,
        body: { agent_id: agent.agentId },
      });
      return agent;
    };
    /** A connector's bout: once the match runs, open the session, submit, wait for the judgement, close. */
    const playBout = async (
      matchId: string,
      agent: BenchAgent,
      i: number,
      t: BoutTimes,
      at: () => number,
    ) => {
      await untilStatus('matches', matchId, (status) => status !== undefined && status !== 'scheduled');
      t.running.push(at());
      const token = agent.tokens[0];
      const sessionId = await openSession(api, token, challengeId);
      const sub = await api.expect(201, 'POST', `/api/v1/sessions/${sessionId}/submissions`, {
        auth: token,
        body: { content: submissionContent(i) },
      });
      t.opened.push(at());
      await untilStatus('submissions', sub.data.id, (status) => status === 'complete');
      t.judged.push(at());
      await api.expect(200, 'DELETE', `/api/v1/sessions/${sessionId}`, { auth: token });
      t.closed.push(at());
    };
    const runBatch = async (
      tag: string,
    ): Promise<{ ms: number; ids: string[]; complete: number; phases: string; cpu: string }> => {
      const players = await inLanes(MATCHES * 2, 4, (i) => newPlayer(i, tag));
      const cpuBefore = cpuNow();
      const started = performance.now();
      const startedAt = Date.now();
      const at = () => performance.now() - started;
      const times: BoutTimes[] = [];
      const ids = await Promise.all(
        Array.from({ length: MATCHES }, async (_, i) => {
          const pair = [players[2 * i], players[2 * i + 1]];
          const res = await api.expect(201, 'POST', `/api/v1/admin/challenges/${challengeId}/matches`, {
            auth: admin.jwt,
            body: { agent_ids: pair.map((p) => p.agentId), rated: true },
          });
          const id = res.data.id as string;
          const t: BoutTimes = {
            created: at(),
            running: [],
            opened: [],
            judged: [],
            closed: [],
            complete: 0,
          };
          times[i] = t;
          await Promise.all(pair.map((p, seat) => playBout(id, p, i + seat, t, at)));
          return id;
        }),
      );
      await until(async () => (await terminal(ids)) === ids.length);
      const ms = performance.now() - started;
      const cpuAfter = cpuNow();
      // Completion from the database's own clock (same machine), as ms from the batch's start.
      const completedAt = await q<{ id: string; at: string }>(
        `SELECT id, (extract(epoch FROM completed_at) * 1000)::float8::text AS at FROM matches WHERE id = ANY($1::uuid[])`,
        [ids],
      );
      const byId = new Map(completedAt.map((r) => [r.id, Number(r.at) - startedAt]));
      ids.forEach((id, i) => (times[i].complete = byId.get(id) ?? ms));
      const complete = (
        await q<{ n: number }>(
          `SELECT count(*)::int AS n FROM matches WHERE id = ANY($1::uuid[]) AND status = 'complete'`,
          [ids],
        )
      )[0].n;
      const perMatch = (k: keyof typeof cpuAfter) => (cpuAfter[k] - cpuBefore[k]) / MATCHES;
      const cpu = `API ${perMatch('api').toFixed(1)} ms, worker ${perMatch('worker').toFixed(1)} ms, Temporal server ${perMatch('temporal').toFixed(1)} ms, PostgreSQL ${perMatch('postgres').toFixed(1)} ms, the participants (this process) ${perMatch('bench').toFixed(1)} ms`;
      return { ms, ids, complete, phases: phaseSummary(times), cpu };
    };
    await runBatch('warm'); // warm-up (worker code paths, Temporal caches)
    const batch = await runBatch('measured');
    const matchesPerSec = MATCHES / (batch.ms / 1000);
    // What one played match costs Temporal: its workflow's history (one workflow task per wake).
    const client = await temporal.get();
    const history = await client.workflow.getHandle(matchWorkflowId(batch.ids[0])).fetchHistory();
    const eventCounts = new Map<string, number>();
    for (const e of history.events ?? []) {
      const type = String(proto.api.enums.v1.EventType[e.eventType ?? 0]).replace(/^EVENT_TYPE_/, '');
      eventCounts.set(type, (eventCounts.get(type) ?? 0) + 1);
    }
    const matchHistory = `${history.events?.length ?? 0} events (${[...eventCounts].map(([t, c]) => `${t} ×${c}`).join(', ')})`;
    // The anchor: the same workflow for matches already complete (every step a no-op).
    const ready = batch.ids.map((id) => ({ id }));
    const emptyStarted = performance.now();
    const handles = await Promise.all(
      ready.map(async ({ id }) => {
        const input: MatchWorkflowInput = { matchId: id };
        return client.workflow.start(MATCH_WORKFLOW, {
          taskQueue: config.TEMPORAL_TASK_QUEUE,
          workflowId: `bench-empty-${id}`,
          args: [input],
        });
      }),
    );
    await Promise.all(handles.map((h) => h.result().catch(() => undefined)));
    const emptyMs = performance.now() - emptyStarted;
    const emptyPerSec = ready.length / (emptyMs / 1000);

    // ---- 2. rating updates per second (and openskill alone)
    const ratedAgents = await newAgents(100, 'bench-r-', false);
    // Seats 1 and 2 draw agents 13 apart (mod 100): always two distinct agents.
    const seedRated = (weightClassId: string, n: number) =>
      q(
        `WITH m AS (
           INSERT INTO matches (challenge_id, weight_class_id, kind, status, rated, origin, started_at, ends_at,
                                bout_ended_at, completed_at, completed_seq)
           SELECT $1, $4, 'bout', 'complete', true, 'exhibition', now(), now(), now(), now(),
                  nextval('match_completed_seq')
             FROM generate_series(1, $2) g RETURNING id, completed_seq)
         INSERT INTO match_participants (match_id, agent_id, seat, owner_user_id, score, rank, outcome)
         SELECT m.id, a.id, s, a.owner_user_id,
                CASE WHEN s = 1 THEN 100 ELSE 0 END, s, CASE WHEN s = 1 THEN 'win' ELSE 'loss' END
           FROM m CROSS JOIN generate_series(1, 2) s
           JOIN agents a ON a.id = ($3::uuid[])[1 + ((m.completed_seq * 7 + s * 13) % 100)::int]`,
        [challengeId, n, ratedAgents, weightClassId],
      );
    // The worker loads the rating library at start-up (src/worker.ts) and, running for days, paid
    // long ago what a process's first batch pays (its statements' first plans, its code's
    // compilation): this process stands in for it with one untimed batch of another class first.
    // Openskill alone below runs warm too (after the writer); its single pass ranged 15,199–83,167/s
    // across the runs of 30 Nov.
    loadRatingLibrary();
    await seedRated('bench-rated-warm', 100);
    await applyPendingRatings(pool, 'bench-rated-warm');
    await seedRated('bench-rated', RATED);
    const applyStarted = performance.now();
    const applied = await applyPendingRatings(pool, 'bench-rated');
    const applyMs = performance.now() - applyStarted;
    const skills = new Map<string, typeof INITIAL_SKILL>();
    const pairs = await q<{ a: string; b: string }>(
      `SELECT min(agent_id::text) FILTER (WHERE seat = 1) AS a, min(agent_id::text) FILTER (WHERE seat = 2) AS b
         FROM match_participants p JOIN matches m ON m.id = p.match_id
        WHERE m.weight_class_id = 'bench-rated' GROUP BY m.id, m.completed_seq ORDER BY m.completed_seq`,
    );
    const openskillStarted = performance.now();
    for (const { a, b } of pairs) {
      const after = rateMatch([
        { skill: skills.get(a) ?? INITIAL_SKILL, rank: 1 },
        { skill: skills.get(b) ?? INITIAL_SKILL, rank: 2 },
      ]);
      skills.set(a, after[0]);
      skills.set(b, after[1]);
    }
    const openskillMs = performance.now() - openskillStarted;

    // ---- 3. the matchmaker's round at ELIGIBLE agents (and the grouping alone)
    const mm = await q<{ id: string }>(
      `INSERT INTO challenges (title, description, category, format, weight_class_id, status, time_limit_minutes,
                               starts_at, ends_at, judge, match, published_at)
       VALUES ('Bench matchmaker', 'Bench.', 'bench', 'head_to_head', 'bench-mm', 'active', 1,
               now() - interval '1 hour', now() + interval '1 day', $1, $2, now()) RETURNING id`,
      [
        JSON.stringify(BENCH_RUBRIC),
        JSON.stringify({
          players: 2,
          every_minutes: 1440,
          rematch_after_minutes: 60,
          max_per_pair_per_day: 6,
          max_per_agent_per_hour: 6,
          rated: true,
        }),
      ],
    );
    const mmChallenge = mm[0].id;
    const eligible = await newAgents(ELIGIBLE, 'bench-e-', true);
    await enter(mmChallenge, eligible);
    const steps = createMatchmakingSteps(deps);
    const roundStarted = performance.now();
    const round = await steps.matchmakingRound({ challengeId: mmChallenge, round: 1 });
    const roundMs = performance.now() - roundStarted;
    // Distinct owners, no history, no caps: every agent has an opponent (a row of 0 matches measured nothing).
    if (round.matchIds.length !== Math.floor(ELIGIBLE / 2))
      throw new Error(
        `the round scheduled ${round.matchIds.length} matches, not ${Math.floor(ELIGIBLE / 2)}`,
      );
    const settings = matchSettingsOf({
      match: { players: 2, every_minutes: 1440, rematch_after_minutes: 60, max_per_pair_per_day: 6 },
    });
    const planStarted = performance.now();
    const plan = planRound({
      candidates: eligible.map((agentId, i) => ({
        agentId,
        ordinal: (i % 50) - 25,
        provisional: isProvisional(i % 7),
        matchesLastHour: 0,
        ownerUserId: agentId,
      })),
      pairs: [],
      settings,
      nowMs: Date.now(),
      seed: `${mmChallenge}:1`,
    });
    const planMs = performance.now() - planStarted;
    // The round's matches end at their next look (nobody plays them), then the starts' floor:
    // as many workflows started the same way (START_CONCURRENCY at a time), each finding its
    // match void.
    await q(`UPDATE matches SET status = 'void', reason = 'bench' WHERE id = ANY($1::uuid[])`, [
      round.matchIds,
    ]);
    const startsStarted = performance.now();
    await inLanes(round.matchIds.length, START_CONCURRENCY, (i) => {
      const input: MatchWorkflowInput = { matchId: round.matchIds[i] };
      return client.workflow.start(MATCH_WORKFLOW, {
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        workflowId: `bench-start-${round.matchIds[i]}`,
        args: [input],
        typedSearchAttributes: [
          { key: MatchIdKey, value: round.matchIds[i] },
          { key: MatchStatusKey, value: 'scheduled' },
          { key: ChallengeIdKey, value: mmChallenge },
        ],
      });
    });
    const startsMs = performance.now() - startsStarted;

    const result = {
      matches: MATCHES,
      batchMs: Math.round(batch.ms),
      matchesComplete: batch.complete,
      matchesPerSec: Number(matchesPerSec.toFixed(2)),
      phases: batch.phases,
      cpuPerMatch: batch.cpu,
      matchHistory,
      playerPollMs: PLAYER_POLL_MS,
      emptyMatches: ready.length,
      emptyMs: Math.round(emptyMs),
      emptyPerSec: Number(emptyPerSec.toFixed(2)),
      rated: RATED,
      applied,
      applyMs: Math.round(applyMs),
      ratingUpdatesPerSec: Math.round(applied / (applyMs / 1000)),
      openskillPerSec: Math.round(pairs.length / (openskillMs / 1000)),
      eligible: ELIGIBLE,
      roundMs: Math.round(roundMs),
      roundMatches: round.matchIds.length,
      planMs: Number(planMs.toFixed(1)),
      planGroups: plan.groups.length,
      startsMs: Math.round(startsMs),
      startConcurrency: START_CONCURRENCY,
    };
    process.stdout.write(`ARENA_RESULT ${JSON.stringify(result)}\n`);
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
