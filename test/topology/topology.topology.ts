/**
 * The production-topology run (`npm run test:topology`, in CI): the real Temporal server on
 * PostgreSQL (temporal/server-postgres.sh), two worker processes and two API processes, all with
 * NODE_ENV=production and production settings (secrets generated for the run, JWT issuer and
 * audience, operators by subject, /metrics behind a token, webhook receivers named as internal
 * origins). It walks the README's walk-through through both APIs, then:
 *
 *  1. faults: submissions at a steady pace, alternately through both APIs, while one worker is
 *     SIGKILLed as it judges, the Temporal server is SIGKILLed and restarted (same databases; the
 *     script's migrations are idempotent) and one API is SIGKILLed and restarted;
 *  2. throughput: a burst of submissions through both APIs, for submissions judged per second.
 *
 * It asserts every accepted submission judged exactly once, every result.finalized delivered once
 * and validly signed, leaderboards (through both APIs) equal to a recomputation from the results,
 * both workers ran workflow tasks (from the workflows' histories), and the workflows are visible
 * and filterable by ChallengeId, AgentId and SubmissionStatus. One summary line per figure.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import { parse } from 'yaml';
import { Client as TemporalClient, Connection } from '@temporalio/client';
import { migrate } from '../../src/db/migrate';
import { SCOPES } from '../../src/auth/scopes';
import { submissionWorkflowId } from '../../src/domain/submissions/contract';
import {
  createWebhook,
  newActiveChallenge,
  newIdempotencyKey,
  newUser,
  openSession,
  submissionContent,
  type BenchAgent,
  type BenchUser,
} from '../../bench/lib/fixtures';
import { ApiClient } from '../../bench/lib/http';
import { loadAverage, machineInfo, postgresCpuMs, processCpuMs } from '../../bench/lib/machine';
import { apiProcess, ManagedProcess, portOpen, ROOT, sleep, workerProcess } from '../../bench/lib/processes';
import { startReceiverProcess, type Receiver } from '../../bench/lib/receiver';
import { prebuiltWorkflowBundle } from '../../bench/lib/workflow-bundle';
import { submitWithRetries, type SubmissionAttemptLog } from '../faults/client';
import {
  checkDeliveries,
  checkLeaderboard,
  checkSubmissions,
  expectedDeliveryCount,
  loadSubmissions,
  uniqueDeliveryCount,
  type SubscriptionExpectation,
} from '../faults/verify';

const FAULT_SUBMISSIONS = Number(process.env.TOPOLOGY_SUBMISSIONS ?? 200);
const BURST_SUBMISSIONS = Number(process.env.TOPOLOGY_BURST_SUBMISSIONS ?? 200);
/**
 * One submission per PACE_MS in the fault phase (5/s: 40 tokens, far below 30 a minute each), a
 * steady stream for the faults to land in; each fault also waits until work is in flight. 400 ms
 * (2.5/s) left the system idle between submissions: 40 s of the run spent waiting, nothing proved.
 */
const PACE_MS = Number(process.env.TOPOLOGY_PACE_MS ?? 200);
const BURST_CONCURRENCY = 16;
const TEMPORAL_PORT = Number(process.env.TOPOLOGY_TEMPORAL_PORT ?? 7340);
const API_PORTS = (process.env.TOPOLOGY_API_PORTS ?? '7350,7351').split(',').map(Number);
const DATABASE = process.env.TOPOLOGY_DATABASE ?? 'challenges_topology';
// The Temporal server takes its port and the eight above it (temporal/server-postgres.sh: http,
// membership, history, matching, worker): an API given one of those cannot listen (EADDRINUSE, and
// the supervisor restarts it until the run times out), so a bad choice is refused at once.
const TEMPORAL_PORTS_TAKEN = 9;
for (const port of API_PORTS)
  if (port >= TEMPORAL_PORT && port < TEMPORAL_PORT + TEMPORAL_PORTS_TAKEN)
    throw new Error(
      `TOPOLOGY_API_PORTS ${port} falls inside the Temporal server's ports ${TEMPORAL_PORT}-${TEMPORAL_PORT + TEMPORAL_PORTS_TAKEN - 1} (TOPOLOGY_TEMPORAL_PORT)`,
    );
const TEMPORAL_DB_PREFIX = process.env.TOPOLOGY_TEMPORAL_DB_PREFIX ?? 'temporal_topology';
const PG_BASE = process.env.TOPOLOGY_PG_BASE ?? 'postgres://postgres@127.0.0.1:5432';
const SETTLE_TIMEOUT_MS = 4 * 60_000;
const DATA_DIR = path.join(ROOT, '.data/topology');
const LOG_DIR = path.join(DATA_DIR, 'logs');
const ISSUER = 'https://idp.topology.test/';
const AUDIENCE = 'challenge-service';
/** The dev-server figure it is compared with: bench `submissions` (1 API + 1 worker), docs/benchmarks.md (2026-11-24). */
const DEV_SERVER_JUDGED_PER_SEC = 50.6;

const secret = () => randomBytes(32).toString('hex');
let T0 = Date.now();
const out = (line: string) =>
  process.stdout.write(`[topology +${((Date.now() - T0) / 1000).toFixed(1)}s] ${line}\n`);

jest.setTimeout(30 * 60_000);

/** The Temporal server on PostgreSQL as a managed process (SIGKILL takes its whole process group). */
function temporalPostgresProcess(env: NodeJS.ProcessEnv): ManagedProcess {
  return new ManagedProcess({
    name: 'temporal',
    command: path.join(ROOT, 'temporal/server-postgres.sh'),
    args: [String(TEMPORAL_PORT), TEMPORAL_DB_PREFIX],
    env: { ...env, TEMPORAL_SERVER_RUN_DIR: path.join(DATA_DIR, 'temporal') },
    logFile: path.join(LOG_DIR, 'temporal.log'),
    ready: { kind: 'stdout', text: 'TEMPORAL_POSTGRES_READY' },
    // The first run builds the server (2-4 min on 2 cores).
    readyTimeoutMs: 15 * 60_000,
  });
}

async function recreateDatabases(): Promise<void> {
  const admin = new PgClient({ connectionString: `${PG_BASE}/postgres` });
  await admin.connect();
  try {
    for (const name of [DATABASE, TEMPORAL_DB_PREFIX, `${TEMPORAL_DB_PREFIX}_visibility`]) {
      if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`bad database name ${name}`);
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    }
  } finally {
    await admin.end();
  }
}

/** The database URL with a password, as production requires (the local server's trust auth ignores it). */
function withPassword(url: string, password: string): string {
  const parsed = new URL(url);
  parsed.password = password;
  return parsed.toString();
}

describe('production topology', () => {
  const processes: ManagedProcess[] = [];
  let receiver: Receiver | undefined;
  let db: PgClient | undefined;
  let temporalConnection: Connection | undefined;

  afterAll(async () => {
    await db?.end().catch(() => undefined);
    await temporalConnection?.close().catch(() => undefined);
    await receiver?.close();
    for (const p of processes.reverse()) await p.stop().catch(() => undefined);
  });

  test('2 APIs + 2 workers on Temporal-on-PostgreSQL, production settings, through faults', async () => {
    T0 = Date.now();
    const loadAtStart = loadAverage();
    for (const port of [TEMPORAL_PORT, ...API_PORTS])
      if (await portOpen('127.0.0.1', port))
        throw new Error(`port ${port} is in use (a leftover of an earlier run?)`);
    rmSync(LOG_DIR, { recursive: true, force: true });
    mkdirSync(LOG_DIR, { recursive: true });

    // ---- PostgreSQL: fresh databases; Temporal on them; the service's schema
    await recreateDatabases();
    const temporal = temporalPostgresProcess(process.env);
    processes.push(temporal);
    const temporalStarted = Date.now();
    // Both workers (and the restarted one) load one bundle built while the Temporal server starts.
    const [workflowBundle] = await Promise.all([prebuiltWorkflowBundle(), temporal.start()]);
    out(
      `Temporal server on PostgreSQL ready on 127.0.0.1:${TEMPORAL_PORT} in ${((Date.now() - temporalStarted) / 1000).toFixed(1)} s`,
    );
    const databaseUrl = withPassword(`${PG_BASE}/${DATABASE}`, secret());
    await migrate(databaseUrl);

    // ---- production settings, secrets generated for this run
    // Its own process: this one issues hundreds of requests while deliveries arrive (a loaded
    // machine once held them past the service's 10 s timeout and the subscriptions were disabled).
    receiver = await startReceiverProcess();
    const operatorSubject = `topology-ops|${randomUUID()}`;
    const jwtSecret = secret();
    const env: Record<string, string> = {
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      // Four processes, a Temporal server and other users share a 100-connection PostgreSQL (docs/scaling.md).
      DATABASE_POOL_MAX: '6',
      TEMPORAL_ADDRESS: `127.0.0.1:${TEMPORAL_PORT}`,
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: `topology-${Date.now()}`,
      TEMPORAL_WORKFLOW_BUNDLE: workflowBundle,
      AUTH_JWT_SECRET: jwtSecret,
      AUTH_JWT_ISSUER: ISSUER,
      AUTH_JWT_AUDIENCE: AUDIENCE,
      AUTH_OPERATOR_SUBJECTS: operatorSubject,
      WEBHOOK_SECRET_KEY: secret(),
      WEBHOOK_INTERNAL_ORIGINS: receiver.url,
      METRICS_TOKEN: secret(),
    };
    const childEnv = { ...process.env, ...env };
    for (const key of [
      'WEBHOOK_ALLOW_PRIVATE',
      'AUTH_TRUST_ROLE_CLAIM',
      'RATE_LIMIT_DISABLED',
      'TRUST_PROXY',
    ] as const)
      delete childEnv[key];
    const workers = [0, 1].map((i) =>
      workerProcess({ env: childEnv, logDir: LOG_DIR, name: `worker-${i + 1}`, supervise: true }),
    );
    const apis = API_PORTS.map((port, i) =>
      apiProcess({
        env: { ...childEnv, PORT: String(port) },
        logDir: LOG_DIR,
        name: `api-${i + 1}`,
        supervise: true,
      }),
    );
    processes.push(...workers, ...apis);
    /** Worker pids over the run (each restart is a new pid): Temporal identities are `pid@host`. */
    const workerPids = new Map<number, string>();
    const startWorker = async (w: ManagedProcess) => {
      await w.start();
      workerPids.set(w.pid!, w.name);
    };
    await Promise.all([...workers.map(startWorker), ...apis.map((a) => a.start())]);
    const clients = API_PORTS.map((port) => new ApiClient(`http://127.0.0.1:${port}`));
    const api = (i: number) => clients[i % clients.length];
    out(`2 workers and 2 APIs (${clients.map((c) => c.baseUrl).join(', ')}) up with NODE_ENV=production`);
    // docker-compose.yml's worker healthcheck, run as is against these workers (same host name).
    const composeWorkerCheck = composeWorkerHealthcheck();
    const healthcheck = spawnSync(process.execPath, ['-e', composeWorkerCheck], {
      cwd: ROOT,
      env: childEnv,
      timeout: 30_000,
    });
    expect(healthcheck.status).toBe(0);

    // Production refuses the dev shortcuts: a role claim is not an operator, /metrics wants its token.
    const roleClaimer = await newUser('admin', jwtSecret, { issuer: ISSUER, audience: AUDIENCE });
    expect((await api(0).request('GET', '/api/v1/admin/challenges', { auth: roleClaimer.jwt })).status).toBe(
      403,
    );
    expect((await api(1).request('GET', '/metrics')).status).toBe(401);
    expect((await api(1).request('GET', '/metrics', { auth: env.METRICS_TOKEN })).status).toBe(200);
    const noAudience = await newUser('user', jwtSecret, { issuer: ISSUER });
    expect((await api(0).request('GET', '/api/v1/agents', { auth: noAudience.jwt })).status).toBe(401);

    const mint = (subject?: string) =>
      newUser('user', jwtSecret, { subject, issuer: ISSUER, audience: AUDIENCE });
    const operator = await mint(operatorSubject);

    // ---- the README walk-through, alternately through both APIs
    await walkThrough(clients, operator, await mint());
    out('README walk-through passed through both APIs');

    // ---- fixtures: four owners with two agents each (5 tokens per agent: 30 submissions/min per token)
    const challengeId = await newActiveChallenge(api(0), operator);
    const owners = await Promise.all([0, 1, 2, 3].map(() => mint()));
    const agents: BenchAgent[] = [];
    for (const [o, owner] of owners.entries())
      for (const n of [0, 1]) agents.push(await newAgentWithTokens(api(o + n), owner, `topo-${o}-${n}`, 5));
    const sessions = new Map<string, string>();
    for (const [i, agent] of agents.entries())
      sessions.set(agent.agentId, await openSession(api(i), agent.tokens[0], challengeId));
    const SIGNING_SECRET = `whsec-${secret()}`;
    const subscriptions: SubscriptionExpectation[] = [];
    for (const [o, owner] of owners.entries()) {
      const subPath = `/hooks/owner-${o}`;
      receiver.secrets.set(subPath, SIGNING_SECRET);
      const id = await createWebhook(
        api(o),
        owner.jwt,
        `${receiver.url}${subPath}`,
        ['result.finalized'],
        SIGNING_SECRET,
      );
      subscriptions.push({
        id,
        path: subPath,
        agentIds: agents.filter((a) => a.user === owner).map((a) => a.agentId),
      });
    }
    db = new PgClient({ connectionString: databaseUrl });
    db.on('error', () => undefined);
    await db.connect();

    // ---- phase 1: paced submissions through both APIs, with faults
    const logs: SubmissionAttemptLog[] = [];
    const submit = (i: number, baseUrl: string) => {
      const agent = agents[i % agents.length];
      return submitWithRetries({
        baseUrl,
        token: agent.tokens[Math.floor(i / agents.length) % agent.tokens.length],
        sessionId: sessions.get(agent.agentId)!,
        index: i,
        agentId: agent.agentId,
        idempotencyKey: newIdempotencyKey(),
        content: submissionContent(i),
        giveUpAfterMs: 4 * 60_000,
      }).then((log) => (logs.push(log), log));
    };
    const unfinished = async () =>
      Number(
        (
          await db!.query<{ n: string }>(
            "SELECT count(*) AS n FROM submissions WHERE challenge_id = $1 AND status NOT IN ('complete', 'failed')",
            [challengeId],
          )
        ).rows[0].n,
      );
    /** Waits (up to 20 s) until some submission is received, queued or judging: a fault then hits work in flight. */
    const workInFlight = async () => {
      const until = Date.now() + 20_000;
      let open = await unfinished();
      while (open === 0 && Date.now() < until) {
        await sleep(10);
        open = await unfinished();
      }
      return open;
    };
    const faultLog: string[] = [];
    const fault = async (name: string, run: () => Promise<string | void>) => {
      const started = Date.now();
      const detail = await run();
      const line = `${name} in ${Date.now() - started} ms${detail ? ` (${detail})` : ''}`;
      faultLog.push(line);
      out(`fault: ${line}`);
    };
    const faults: { at: number; run: () => Promise<void> }[] = [
      {
        at: Math.floor(FAULT_SUBMISSIONS * 0.25),
        run: () =>
          fault('SIGKILL worker-1 while judging', async () => {
            const open = await workInFlight();
            await workers[0].kill('SIGKILL');
            await sleep(1000);
            await startWorker(workers[0]);
            return `${open} submissions unfinished at the kill`;
          }),
      },
      {
        at: Math.floor(FAULT_SUBMISSIONS * 0.5),
        run: () =>
          fault('restart the Temporal server (SIGKILL, same databases)', async () => {
            const open = await workInFlight();
            await temporal.kill('SIGKILL');
            await sleep(1000);
            await temporal.start();
            return `${open} submissions unfinished at the kill`;
          }),
      },
      {
        at: Math.floor(FAULT_SUBMISSIONS * 0.75),
        run: () =>
          fault('restart api-2 (SIGKILL)', async () => {
            await apis[1].kill('SIGKILL');
            await apis[1].start();
          }),
      },
    ];
    let issued = 0;
    const chaos = (async () => {
      for (const f of faults) {
        while (issued < f.at) await sleep(50);
        await f.run();
      }
    })();
    const phase1Started = Date.now();
    const pending: Promise<SubmissionAttemptLog>[] = [];
    for (let i = 0; i < FAULT_SUBMISSIONS; i++) {
      const due = phase1Started + i * PACE_MS;
      if (due > Date.now()) await sleep(due - Date.now());
      pending.push(submit(i, api(i).baseUrl));
      issued = i + 1;
      if ((i + 1) % 50 === 0) out(`${i + 1} submissions issued`);
    }
    await Promise.all(pending);
    await chaos;
    out(
      `fault phase: ${FAULT_SUBMISSIONS} submissions answered in ${((Date.now() - phase1Started) / 1000).toFixed(1)} s`,
    );
    await settle(FAULT_SUBMISSIONS);

    // ---- phase 2: a burst through both APIs, for throughput (no faults), with the CPU it costs
    const cpuBefore = cpuByComponent(apis, workers);
    const burstStarted = new Date();
    let next = FAULT_SUBMISSIONS;
    const end = FAULT_SUBMISSIONS + BURST_SUBMISSIONS;
    await Promise.all(
      Array.from({ length: BURST_CONCURRENCY }, async () => {
        while (next < end) {
          const i = next++;
          await submit(i, api(i).baseUrl);
        }
      }),
    );
    out(
      `burst: ${BURST_SUBMISSIONS} submissions answered in ${((Date.now() - burstStarted.getTime()) / 1000).toFixed(1)} s`,
    );
    await settle(end);
    const cpuAfter = cpuByComponent(apis, workers);
    const throughput = await db.query<{ n: string; first: Date; last: Date }>(
      `SELECT count(*) AS n, min(s.created_at) AS first, max(c.created_at) AS last
         FROM submissions s JOIN submission_events c ON c.submission_id = s.id AND c.status = 'complete'
        WHERE s.challenge_id = $1 AND s.created_at >= $2`,
      [challengeId, burstStarted],
    );
    const burstJudged = Number(throughput.rows[0].n);
    const burstSeconds = (throughput.rows[0].last.getTime() - throughput.rows[0].first.getTime()) / 1000;
    const judgedPerSec = burstJudged / burstSeconds;
    const cpuPerJudged = Object.fromEntries(
      Object.entries(cpuAfter).map(([k, v]) => [
        k,
        Math.round((v - cpuBefore[k as keyof typeof cpuBefore]) / burstJudged),
      ]),
    ) as Record<keyof typeof cpuAfter, number>;

    async function settle(expected: number): Promise<void> {
      // Waits for the condition while the system makes progress: a loaded machine delivers late,
      // not never. It gives up only after SETTLE_TIMEOUT_MS without any change.
      let started = Date.now();
      let last = '';
      while (Date.now() - started < SETTLE_TIMEOUT_MS) {
        const rows = await loadSubmissions(db!, challengeId);
        const complete = completeByAgentOf(rows);
        const open = rows.filter((r) => r.status !== 'complete' && r.status !== 'failed').length;
        const want = expectedDeliveryCount(subscriptions, complete);
        const got = uniqueDeliveryCount(receiver!, subscriptions);
        if (rows.length >= expected && open === 0 && got >= want) return;
        const now = `${rows.length}/${open}/${got}/${want}`;
        if (now !== last) {
          last = now;
          started = Date.now();
        }
        await sleep(100);
      }
      out(`did not settle: no progress for ${SETTLE_TIMEOUT_MS / 1000} s`);
    }
    await sleep(3000); // late duplicate deliveries, if any, are caught too

    // ---- verify
    const rows = await loadSubmissions(db, challengeId);
    const completeByAgent = completeByAgentOf(rows);
    const submissions = await checkSubmissions(db, challengeId, logs);
    const judgedTwice = await db.query<{ submission_id: string; n: string }>(
      `SELECT r.submission_id, count(*) AS n FROM results r JOIN submissions s ON s.id = r.submission_id
        WHERE s.challenge_id = $1 GROUP BY r.submission_id HAVING count(*) <> 1`,
      [challengeId],
    );
    const deliveries = checkDeliveries(receiver, subscriptions, completeByAgent);
    const boards = [
      await checkLeaderboard(db, api(0), challengeId),
      await checkLeaderboard(db, api(1), challengeId),
    ];
    const leaderboardsEqual =
      JSON.stringify(
        (await api(0).request('GET', `/api/v1/leaderboards/${challengeId}?limit=100`)).body.data,
      ) ===
      JSON.stringify(
        (await api(1).request('GET', `/api/v1/leaderboards/${challengeId}?limit=100`)).body.data,
      );

    temporalConnection = await Connection.connect({ address: env.TEMPORAL_ADDRESS });
    const temporalClient = new TemporalClient({ connection: temporalConnection, namespace: 'default' });
    const tasksByWorker = await workflowTasksByWorker(temporalClient, rows, workerPids);
    const visibility = await checkVisibility(temporalClient, challengeId, rows);
    const crashes = [...apis, ...workers]
      .filter((p) => p.unexpectedExits > 0)
      .map(
        (p) => `CRASH: ${p.name} exited ${p.unexpectedExits} time(s) unasked: ${p.crashReports.join(' / ')}`,
      );
    const problems = [
      ...crashes,
      ...submissions.problems,
      ...judgedTwice.rows.map((r) => `submission ${r.submission_id} has ${r.n} results`),
      ...deliveries.problems,
      ...boards.flatMap((b) => b.problems),
      ...(leaderboardsEqual ? [] : ['the two APIs answer different leaderboards']),
      ...[...workers.map((w) => w.name)]
        .filter((name) => !(tasksByWorker.get(name) ?? 0))
        .map((name) => `${name} completed no workflow task`),
      ...visibility.problems,
    ];

    const answered = logs.filter((l) => l.outcome === 'answered');
    const perApi = API_PORTS.map((_, a) => answered.filter((l) => l.index % API_PORTS.length === a).length);
    const lines = [
      `submissions accepted: ${answered.length} of ${logs.length} (${perApi.map((n, i) => `api-${i + 1} ${n}`).join(', ')}; client retries ${logs.reduce((a, l) => a + l.attempts - 1, 0)})`,
      `submissions judged exactly once: ${rows.filter((r) => r.status === 'complete').length} complete, ${rows.filter((r) => r.status === 'failed').length} failed, ${judgedTwice.rows.length} with ≠ 1 result`,
      `result.finalized deliveries: ${deliveries.counts.uniqueDeliveries} unique over ${subscriptions.length} subscriptions, ${deliveries.counts.identicalResends} identical re-sends, ${deliveries.counts.badSignatures} bad signatures`,
      `leaderboards: ${boards[0].rows} rows, equal to the recomputation through api-1 and api-2: ${boards.every((b) => b.problems.length === 0) && leaderboardsEqual ? 'yes' : 'NO'}`,
      `workflow tasks completed by worker (submission workflows): ${[...tasksByWorker].map(([w, n]) => `${w} ${n}`).join(', ')}`,
      `visibility: ${visibility.summary}`,
      `faults: ${faultLog.join('; ')}`,
      `docker-compose worker healthcheck against these workers: ${healthcheck.status === 0 ? 'healthy' : 'UNHEALTHY'}`,
      `submissions judged/s: ${judgedPerSec.toFixed(1)} on this topology (burst of ${burstJudged} in ${burstSeconds.toFixed(1)} s, 2 APIs + 2 workers, Temporal on PostgreSQL, rate limits on) vs ${DEV_SERVER_JUDGED_PER_SEC} on the dev server (docs/benchmarks.md: 1 API + 1 worker, rate limits off)`,
      `CPU per judged submission in the burst (incl. its webhook delivery): APIs ${cpuPerJudged.api} ms, workers ${cpuPerJudged.worker} ms, Temporal server ${cpuPerJudged.temporal} ms, PostgreSQL ${cpuPerJudged.postgres} ms (machine-wide, other users included)`,
      `time: ${((Date.now() - T0) / 1000).toFixed(0)} s total; load average ${loadAtStart} at start, ${loadAverage()} at end; ${machineInfo().nproc} CPUs`,
    ];
    for (const line of lines) out(`SUMMARY ${line}`);
    writeFileSync(
      path.join(DATA_DIR, 'summary.json'),
      JSON.stringify(
        {
          lines,
          judgedPerSec,
          burstJudged,
          burstSeconds,
          faults: faultLog,
          problems,
          tasksByWorker: Object.fromEntries(tasksByWorker),
        },
        null,
        2,
      ),
    );
    if (problems.length) out(`PROBLEMS\n${problems.join('\n')}`);

    expect(problems).toEqual([]);
    expect(answered.length).toBe(FAULT_SUBMISSIONS + BURST_SUBMISSIONS);
    expect(faultLog).toHaveLength(3);
  });
});

/** CPU time (ms) used so far by the APIs, the workers, the Temporal server and PostgreSQL (whole machine). */
function cpuByComponent(apis: ManagedProcess[], workers: ManagedProcess[]) {
  const sum = (ps: ManagedProcess[]) => ps.reduce((total, p) => total + processCpuMs(p.pid), 0);
  return {
    api: sum(apis),
    worker: sum(workers),
    temporal: processCpuMs(temporalServerPid()),
    postgres: postgresCpuMs(),
  };
}

/** The temporal-server process server-postgres.sh started for this run (found by its --root). */
function temporalServerPid(): number | undefined {
  const root = path.join(DATA_DIR, 'temporal');
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (cmdline[0]?.endsWith('temporal-server') && cmdline.includes(root)) return Number(entry);
    } catch {
      /* exited meanwhile */
    }
  }
  return undefined;
}

/** The worker healthcheck script of docker-compose.yml (`CMD node -e <script>`). */
function composeWorkerHealthcheck(): string {
  const test = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8')).services.worker.healthcheck
    .test as string[];
  return test[test.indexOf('-e') + 1];
}

function completeByAgentOf(
  rows: { id: string; agent_id: string; status: string }[],
): Map<string, Set<string>> {
  const byAgent = new Map<string, Set<string>>();
  for (const r of rows)
    if (r.status === 'complete') byAgent.set(r.agent_id, (byAgent.get(r.agent_id) ?? new Set()).add(r.id));
  return byAgent;
}

async function newAgentWithTokens(
  api: ApiClient,
  user: BenchUser,
  name: string,
  tokenCount: number,
): Promise<BenchAgent> {
  const agent = await api.expect(201, 'POST', '/api/v1/agents', {
    auth: user.jwt,
    body: { name, model_name: 'topology-model' },
  });
  const tokens: string[] = [];
  for (let i = 0; i < tokenCount; i++) {
    const token = await api.expect(201, 'POST', '/api/v1/auth/tokens', {
      auth: user.jwt,
      body: { name: `${name} ${i}`, scopes: [...SCOPES], agent_id: agent.data.id },
    });
    tokens.push(token.data.token);
  }
  return { user, agentId: agent.data.id, name, tokens };
}

/**
 * The README's curl walk-through (README.md, "A complete walk-through"), step by step, each step
 * through the other API than the one before: both processes serve one consistent service.
 */
async function walkThrough(clients: ApiClient[], operator: BenchUser, user: BenchUser): Promise<void> {
  let turn = 0;
  const api = () => clients[turn++ % clients.length];
  const agent = await api().expect(201, 'POST', '/api/v1/agents', {
    auth: user.jwt,
    body: { name: 'alice-bot' },
  });
  const token = (
    await api().expect(201, 'POST', '/api/v1/auth/tokens', {
      auth: user.jwt,
      body: {
        name: 'ci',
        agent_id: agent.data.id,
        scopes: [
          'challenge:read',
          'challenge:enter',
          'submission:create',
          'submission:read',
          'result:read',
          'leaderboard:read',
          'webhook:manage',
        ],
      },
    })
  ).data.token;
  const draft = await api().expect(201, 'POST', '/api/v1/admin/challenges', {
    auth: operator.jwt,
    body: {
      title: 'Answer',
      category: 'puzzles',
      format: 'solo',
      weight_class_id: 'open',
      time_limit_minutes: 60,
      judge: {
        kind: 'rubric',
        criteria: [
          { name: 'answer', weight: 3, check: { type: 'contains', value: '42' } },
          { name: 'concise', check: { type: 'length', max: 200 } },
        ],
      },
    },
  });
  const challengeId = draft.data.id;
  await api().expect(200, 'POST', `/api/v1/admin/challenges/${challengeId}/publish`, { auth: operator.jwt });
  const listed = await api().expect(200, 'GET', '/api/v1/challenges?status=active&limit=100');
  if (!listed.data.some((c: { id: string }) => c.id === challengeId))
    throw new Error('the published challenge is not listed');
  const session = await api().expect(201, 'POST', `/api/v1/challenges/${challengeId}/sessions`, {
    auth: token,
  });
  const again = await api().expect(200, 'POST', `/api/v1/challenges/${challengeId}/sessions`, {
    auth: token,
  });
  if (again.data.session_id !== session.data.session_id || again.data.existing !== true)
    throw new Error('a second open did not return the session');
  const submission = await api().expect(
    201,
    'POST',
    `/api/v1/sessions/${session.data.session_id}/submissions`,
    {
      auth: token,
      headers: { 'idempotency-key': newIdempotencyKey() },
      body: {
        content: 'The answer is 42',
        files: [{ path: 'notes.md', content: '# why 42', language: 'markdown' }],
      },
    },
  );
  const submissionId = submission.data.id;
  const deadline = Date.now() + 60_000;
  let status = '';
  while (status !== 'complete' && Date.now() < deadline) {
    status = (await api().expect(200, 'GET', `/api/v1/submissions/${submissionId}`, { auth: token })).data
      .submission_status;
    if (status !== 'complete') await sleep(200);
  }
  if (status !== 'complete') throw new Error(`walk-through submission is ${status} after 60 s`);
  const result = await api().expect(200, 'GET', `/api/v1/results/${submissionId}`, { auth: token });
  if (result.data.final_score !== 100)
    throw new Error(`walk-through score ${result.data.final_score}, expected 100`);
  await api().expect(200, 'GET', `/api/v1/submissions/${submissionId}/breakdown`, { auth: token });
  const board = await api().expect(200, 'GET', `/api/v1/leaderboards/${challengeId}?limit=50`);
  if (board.data[0]?.agent_id !== agent.data.id)
    throw new Error('the walk-through agent does not lead the leaderboard');
  const csv = await api().request('GET', `/api/v1/leaderboards/${challengeId}/export.csv`);
  if (csv.status !== 200 || !String(csv.body).includes(agent.data.id))
    throw new Error('the CSV export lacks the agent');
  await api().expect(202, 'POST', `/api/v1/admin/submissions/${submissionId}/rejudge`, {
    auth: operator.jwt,
  });
}

/**
 * Workflow tasks completed per worker process, from the submissions' workflow histories (the
 * rubric judge runs as local activities inside the workflow task, so that is where judging runs).
 */
async function workflowTasksByWorker(
  client: TemporalClient,
  rows: { id: string }[],
  workerPids: Map<number, string>,
): Promise<Map<string, number>> {
  const counts = new Map<string, number>([...new Set(workerPids.values())].map((name) => [name, 0]));
  const queue = [...rows];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let row = queue.pop(); row; row = queue.pop()) {
        const history = await client.workflow.getHandle(submissionWorkflowId(row.id, 0)).fetchHistory();
        for (const event of history.events ?? []) {
          const identity = event.workflowTaskCompletedEventAttributes?.identity;
          if (!identity) continue;
          const name = workerPids.get(Number(identity.split('@')[0])) ?? `unknown (${identity})`;
          counts.set(name, (counts.get(name) ?? 0) + 1);
        }
      }
    }),
  );
  return counts;
}

/** Every submission workflow is found by ChallengeId, by AgentId and by SubmissionStatus (visibility may lag a little). */
async function checkVisibility(
  client: TemporalClient,
  challengeId: string,
  rows: { id: string; agent_id: string; status: string }[],
): Promise<{ problems: string[]; summary: string }> {
  const complete = rows.filter((r) => r.status === 'complete');
  const agentId = rows[0]?.agent_id;
  const perAgent = complete.filter((r) => r.agent_id === agentId).length;
  const queries: [string, number][] = [
    [`WorkflowType = 'submissionWorkflow' AND ChallengeId = '${challengeId}'`, rows.length],
    [`ChallengeId = '${challengeId}' AND SubmissionStatus = 'complete'`, complete.length],
    [`ChallengeId = '${challengeId}' AND AgentId = '${agentId}' AND SubmissionStatus = 'complete'`, perAgent],
  ];
  const found: number[] = [];
  const deadline = Date.now() + 60_000;
  for (const [query, want] of queries) {
    let got = -1;
    while (Date.now() < deadline) {
      got = (await client.workflow.count(query)).count;
      if (got === want) break;
      await sleep(500);
    }
    found.push(got);
  }
  const problems = queries.flatMap(([query, want], i) =>
    found[i] === want ? [] : [`visibility: "${query}" counts ${found[i]}, expected ${want}`],
  );
  return {
    problems,
    summary: `by ChallengeId ${found[0]}/${queries[0][1]}, + SubmissionStatus=complete ${found[1]}/${queries[1][1]}, + AgentId ${found[2]}/${queries[2][1]}`,
  };
}
