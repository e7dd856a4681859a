/**
 * The fault run (`npm run test:faults`): 300 submissions judged by a rubric judge, from three agents
 * of two owners at a steady pace, with webhook subscribers recording result.finalized deliveries,
 * while the harness SIGKILLs the worker several times, SIGKILLs the API twice, restarts the
 * (file-backed) Temporal dev server and restarts PostgreSQL. Real processes throughout: its own
 * database (challenges_faults), its own Temporal dev server (port 7255), worker and API.
 *
 * Then: every submission answered 2xx is judged exactly once (one current result, one
 * result.finalized), none is lost or stuck, each subscription got exactly one delivery id per
 * judged submission (identical re-sends allowed), and the leaderboard equals a recomputation from
 * the results table. A summary is printed and written to .data/faults/summary.json.
 */
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import {
  createWebhook,
  newActiveChallenge,
  newAgent,
  newIdempotencyKey,
  newUser,
  openSession,
  submissionContent,
  type BenchAgent,
} from '../../bench/lib/fixtures';
import { loadAverage, machineInfo } from '../../bench/lib/machine';
import { portOpen, ROOT, sleep, type ProcessEvent } from '../../bench/lib/processes';
import { startReceiverProcess, type Receiver } from '../../bench/lib/receiver';
import { startStack, type Stack } from '../../bench/lib/stack';
import { summarize } from '../../bench/lib/stats';
import { restartDisturbsOthers, restartPostgres, waitForExclusivePostgres } from './chaos';
import { inFlight, medianPostMs, submitWithRetries, type SubmissionAttemptLog } from './client';
import {
  checkDeliveries,
  checkLeaderboard,
  checkSubmissions,
  expectedDeliveryCount,
  loadSubmissions,
  uniqueDeliveryCount,
  type SubscriptionExpectation,
} from './verify';

const SUBMISSIONS = Number(process.env.FAULTS_SUBMISSIONS ?? 300);
/**
 * One submission per PACE_MS on average (≈2.5/s), sent in bursts of BURST (agents submit in
 * batches), so that every fault, which follows a burst, finds several submissions in the pipeline.
 */
const PACE_MS = Number(process.env.FAULTS_PACE_MS ?? 400);
const BURST = Number(process.env.FAULTS_BURST ?? 10);
const TEMPORAL_PORT = Number(process.env.FAULTS_TEMPORAL_PORT ?? 7255);
const DATABASE = process.env.FAULTS_DATABASE ?? 'challenges_faults';
/** How long the PostgreSQL restart waits for other engineers' jest runs to finish. */
const PG_EXCLUSIVE_WAIT_MS = Number(process.env.FAULTS_PG_WAIT_MS ?? 10 * 60_000);
const SETTLE_TIMEOUT_MS = 5 * 60_000;
const DATA_DIR = path.join(ROOT, '.data/faults');
const SECRET = 'whsec-faults-0123456789abcdef';

type Fault = { at: number; name: string; run: () => Promise<string | void> };

const out = (line: string) =>
  process.stdout.write(`[faults +${((Date.now() - T0) / 1000).toFixed(1)}s] ${line}\n`);
let T0 = Date.now();

jest.setTimeout(45 * 60_000);

describe('fault run', () => {
  let stack: Stack | undefined;
  let receiver: Receiver | undefined;
  let db: Client | undefined;

  afterAll(async () => {
    await db?.end().catch(() => undefined);
    await receiver?.close();
    await stack?.stop();
  });

  test(`${SUBMISSIONS} submissions survive worker/API SIGKILLs, a Temporal restart and a PostgreSQL restart`, async () => {
    T0 = Date.now();
    const loadAtStart = loadAverage();
    if (await portOpen('127.0.0.1', TEMPORAL_PORT)) {
      throw new Error(
        `port ${TEMPORAL_PORT} is in use: the fault run needs its own Temporal dev server there (a leftover of an earlier run?)`,
      );
    }
    const temporalDb = path.join(DATA_DIR, 'temporal.db');
    for (const suffix of ['', '-wal', '-shm']) rmSync(temporalDb + suffix, { force: true });
    rmSync(path.join(DATA_DIR, 'logs'), { recursive: true, force: true });

    stack = await startStack({
      label: 'faults',
      database: DATABASE,
      temporalPort: TEMPORAL_PORT,
      temporalDbFile: temporalDb,
      supervise: true,
      // TCP, as to a database on another host: a restart resets live connections.
      pgTcp: true,
      env: { LOG_LEVEL: 'info' },
    });
    const { client: api } = stack;
    out(
      `stack up in ${((Date.now() - T0) / 1000).toFixed(1)} s: API ${stack.apiUrl}, Temporal :${TEMPORAL_PORT} (file ${path.relative(ROOT, temporalDb)}), database ${DATABASE}`,
    );

    // ---- fixtures: two owners, three agents (3 tokens each: 30 submissions/min/token), 3 subscriptions
    const admin = await newUser('admin');
    const challengeId = await newActiveChallenge(api, admin);
    const ownerA = await newUser();
    const ownerB = await newUser();
    const agents: BenchAgent[] = [
      await newAgent(api, ownerA, { name: 'faults-a1', tokenCount: 3 }),
      await newAgent(api, ownerA, { name: 'faults-a2', tokenCount: 3 }),
      await newAgent(api, ownerB, { name: 'faults-b1', tokenCount: 3 }),
    ];
    const sessions = new Map<string, string>();
    for (const agent of agents)
      sessions.set(agent.agentId, await openSession(api, agent.tokens[0], challengeId));

    // Its own process: this one issues hundreds of requests while deliveries arrive (a loaded
    // machine once held them past the service's 10 s timeout and the subscriptions were disabled).
    receiver = await startReceiverProcess();
    const subscriptions: SubscriptionExpectation[] = [];
    for (const [owner, name, agentIds] of [
      [ownerA, 'owner-a', [agents[0].agentId, agents[1].agentId]],
      [ownerA, 'owner-a-second', [agents[0].agentId, agents[1].agentId]],
      [ownerB, 'owner-b', [agents[2].agentId]],
    ] as const) {
      const subPath = `/hooks/${name}`;
      receiver.secrets.set(subPath, SECRET);
      const id = await createWebhook(
        api,
        owner.jwt,
        `${receiver.url}${subPath}`,
        ['result.finalized'],
        SECRET,
      );
      subscriptions.push({ id, path: subPath, agentIds: [...agentIds] });
    }

    // ---- faults, each at a point of the submission schedule. They run one after another (restarts
    // wait until ready), except the PostgreSQL restart: it runs beside them, since it may first have
    // to wait for other engineers' test runs to finish.
    const s = stack;
    const pgRestart = { waitedMs: 0, skipped: false, downMs: 0 };
    const faultLog: {
      name: string;
      at: number;
      tookMs: number;
      inFlightPosts: number;
      unjudged: number;
      detail?: string;
    }[] = [];
    const killWorker = async () => {
      await s.worker.kill('SIGKILL');
      await sleep(1000);
      await s.worker.start();
    };
    const killApi = async () => {
      // Aim at a POST well into its processing (past 60 % of the median answer time: ideally after
      // its commit, before its answer), so that its retry must be answered from the stored outcome.
      const until = Date.now() + 10_000;
      const ripe = () => [...inFlight.startedAt].some((t) => performance.now() - t >= 0.6 * medianPostMs());
      while (!ripe() && Date.now() < until) await sleep(1);
      await s.api.kill('SIGKILL');
      await s.api.start();
    };
    const restartPg = async () => {
      const waited = restartDisturbsOthers ? await waitForExclusivePostgres(PG_EXCLUSIVE_WAIT_MS, out) : 0;
      if (waited === null) {
        pgRestart.skipped = true;
        return 'SKIPPED: other jest runs kept running';
      }
      pgRestart.waitedMs = waited;
      pgRestart.downMs = await restartPostgres(stack!.databaseUrl);
      return `waited ${Math.round(waited / 1000)} s for other test runs; accepting connections again after ${pgRestart.downMs} ms`;
    };
    const at = (fraction: number) => Math.floor(SUBMISSIONS * fraction);
    const faults: (Fault & { parallel?: boolean })[] = [
      { at: at(0.08), name: 'SIGKILL worker', run: killWorker },
      { at: at(0.18), name: 'SIGKILL API (with a POST in flight)', run: killApi },
      { at: at(0.28), name: 'SIGKILL worker', run: killWorker },
      {
        at: at(0.38),
        name: 'restart Temporal dev server (SIGKILL, same SQLite file)',
        run: async () => {
          await s.temporal!.kill('SIGKILL');
          await sleep(1000);
          await s.temporal!.start();
        },
      },
      {
        at: at(0.48),
        name: 'SIGKILL worker twice in a row',
        run: async () => (await killWorker(), await sleep(3000), await killWorker()),
      },
      { at: at(0.6), name: 'restart PostgreSQL', run: restartPg, parallel: true },
      { at: at(0.7), name: 'SIGKILL API (with a POST in flight)', run: killApi },
      { at: at(0.82), name: 'SIGKILL worker', run: killWorker },
    ];

    let issued = 0;
    /** Issued submissions whose result.finalized has not reached the owner's first subscription yet. */
    const unjudged = () => {
      const delivered = new Set(
        receiver!.deliveries
          .filter((d) => d.path === '/hooks/owner-a' || d.path === '/hooks/owner-b')
          .map((d) => d.body?.submission_id ?? d.body?.data?.submission_id),
      );
      return issued - delivered.size;
    };
    const runFault = async (fault: Fault) => {
      const started = Date.now();
      const snapshot = { inFlightPosts: inFlight.count, unjudged: unjudged() };
      out(
        `fault: ${fault.name} (after ${issued} submissions issued, ${snapshot.unjudged} of them not yet judged and delivered; load ${loadAverage()})`,
      );
      const detail = (await fault.run()) || undefined;
      faultLog.push({
        name: fault.name,
        at: started - T0,
        tookMs: Date.now() - started,
        ...snapshot,
        detail,
      });
      out(`fault: ${fault.name} done in ${Date.now() - started} ms${detail ? ` (${detail})` : ''}`);
    };
    const sideFaults: Promise<void>[] = [];
    const chaos = (async () => {
      for (const fault of faults) {
        while (issued < fault.at) await sleep(100);
        if (fault.parallel) sideFaults.push(runFault(fault));
        else await runFault(fault);
      }
      await Promise.all(sideFaults);
    })();

    // ---- the clients: one submission every PACE_MS, each retried with its own Idempotency-Key
    const driveStarted = Date.now();
    const pending: Promise<SubmissionAttemptLog>[] = [];
    for (let i = 0; i < SUBMISSIONS; i++) {
      const due = driveStarted + Math.floor(i / BURST) * BURST * PACE_MS;
      if (due > Date.now()) await sleep(due - Date.now());
      const agent = agents[i % agents.length];
      pending.push(
        submitWithRetries({
          baseUrl: stack.apiUrl,
          token: agent.tokens[Math.floor(i / agents.length) % agent.tokens.length],
          sessionId: sessions.get(agent.agentId)!,
          index: i,
          agentId: agent.agentId,
          idempotencyKey: newIdempotencyKey(),
          content: submissionContent(i),
          giveUpAfterMs: 5 * 60_000,
        }),
      );
      issued = i + 1;
      if ((i + 1) % 50 === 0) out(`${i + 1} submissions issued`);
    }
    const logs = await Promise.all(pending);
    const driveMs = Date.now() - driveStarted;
    out(
      `all ${SUBMISSIONS} clients done in ${(driveMs / 1000).toFixed(1)} s; waiting for the faults to finish`,
    );
    await chaos;

    // ---- settle: every submission complete/failed, every expected delivery received (bounded)
    db = new Client({ connectionString: stack.databaseUrl });
    db.on('error', () => undefined);
    await db.connect();
    const settleStarted = Date.now();
    let completeByAgent = new Map<string, Set<string>>();
    let settled = false;
    let lastSettleLog = settleStarted;
    while (Date.now() - settleStarted < SETTLE_TIMEOUT_MS) {
      const rows = await loadSubmissions(db, challengeId);
      completeByAgent = new Map();
      for (const r of rows)
        if (r.status === 'complete')
          completeByAgent.set(r.agent_id, (completeByAgent.get(r.agent_id) ?? new Set()).add(r.id));
      const open = rows.filter((r) => r.status !== 'complete' && r.status !== 'failed').length;
      const want = expectedDeliveryCount(subscriptions, completeByAgent);
      const got = uniqueDeliveryCount(receiver, subscriptions);
      if (open === 0 && got >= want) {
        settled = true;
        break;
      }
      if (Date.now() - lastSettleLog >= 10_000) {
        lastSettleLog = Date.now();
        out(`settling: ${open} submissions not finished, ${got}/${want} deliveries`);
      }
      // A short poll: the run ends as soon as the last delivery lands, not up to a second later.
      await sleep(200);
    }
    const settleMs = Date.now() - settleStarted;
    // A little longer, so that late duplicate deliveries (if any) are caught too.
    await sleep(3000);

    // ---- verify
    const submissions = await checkSubmissions(db, challengeId, logs);
    const deliveries = checkDeliveries(receiver, subscriptions, completeByAgent);
    const leaderboard = await checkLeaderboard(db, api, challengeId);
    // A process that died by itself (the supervisor restarted it) is a bug even when nothing was lost.
    const crashes = [stack.api, stack.worker]
      .filter((p) => p.unexpectedExits > 0)
      .map(
        (p) =>
          `CRASH: the ${p.name} exited ${p.unexpectedExits} time(s) without being killed (see ${path.relative(ROOT, stack!.logDir)}/${p.name}.log): ${p.crashReports.join(' / ')}`,
      );
    const problems = [
      ...(settled ? [] : [`did not settle within ${SETTLE_TIMEOUT_MS / 1000} s`]),
      ...crashes,
      ...submissions.problems,
      ...deliveries.problems,
      ...leaderboard.problems,
    ];

    const answered = logs.filter((l) => l.outcome === 'answered');
    const judgedLatency = summarize(
      (
        await db.query<{ ms: number }>(
          `SELECT extract(epoch FROM (c.created_at - s.created_at)) * 1000 AS ms
             FROM submissions s JOIN submission_events c ON c.submission_id = s.id AND c.status = 'complete'
            WHERE s.challenge_id = $1`,
          [challengeId],
        )
      ).rows.map((r) => Number(r.ms)),
    );
    const processEvents: ProcessEvent[] = [
      ...stack.api.events,
      ...stack.worker.events,
      ...(stack.temporal?.events ?? []),
    ];
    const summary = {
      submissions: SUBMISSIONS,
      paceMs: PACE_MS,
      burst: BURST,
      answered2xx: answered.length,
      answered201: answered.filter((l) => l.status === 201).length,
      answered200Replay: answered.filter((l) => l.status === 200).length,
      rejected: logs.filter((l) => l.outcome === 'rejected').length,
      gaveUp: logs.filter((l) => l.outcome === 'gave_up').length,
      clientRetries: {
        requests: logs.reduce((a, l) => a + l.attempts, 0),
        networkErrors: logs.reduce((a, l) => a + l.networkErrors, 0),
        serverErrors: logs.reduce((a, l) => a + l.serverErrors, 0),
        conflicts: logs.reduce((a, l) => a + l.conflicts, 0),
        rateLimited: logs.reduce((a, l) => a + l.rateLimited, 0),
      },
      database: submissions.counts,
      webhooks: {
        subscriptions: subscriptions.length,
        received: receiver.deliveries.length,
        ...deliveries.counts,
      },
      leaderboardRows: leaderboard.rows,
      submissionToCompleteMs: {
        p50: Math.round(judgedLatency.p50),
        p99: Math.round(judgedLatency.p99),
        max: Math.round(judgedLatency.max),
      },
      faults: faultLog,
      kills: {
        worker: processEvents.filter((e) => e.process === 'worker' && e.what === 'killed').length,
        api: processEvents.filter((e) => e.process === 'api' && e.what === 'killed').length,
        temporal: processEvents.filter((e) => e.process === 'temporal' && e.what === 'killed').length,
        postgresRestarts: pgRestart.skipped ? 0 : 1,
      },
      unexpectedExits: {
        api: stack.api.unexpectedExits,
        worker: stack.worker.unexpectedExits,
        temporal: stack.temporal?.unexpectedExits ?? 0,
      },
      timeMs: { total: Date.now() - T0, drive: driveMs, settle: settleMs },
      loadAverage: { start: loadAtStart, end: loadAverage() },
      machine: machineInfo(),
      problems,
    };
    writeFileSync(
      path.join(DATA_DIR, 'summary.json'),
      JSON.stringify({ ...summary, processEvents }, null, 2),
    );
    out(`SUMMARY\n${JSON.stringify(summary, null, 2)}`);

    expect(problems).toEqual([]);
    expect(answered.length).toBe(SUBMISSIONS);
    expect(summary.kills.worker).toBeGreaterThanOrEqual(4);
  });
});
