/**
 * Submission pipeline benchmark (on demand, not part of jest):
 *
 *   TEMPORAL_ADDRESS=127.0.0.1:7244 npx tsx bench/submissions.ts
 *
 * Needs PostgreSQL (DATABASE_URL's server) and a running Temporal server at TEMPORAL_ADDRESS
 * (e.g. `bash temporal/dev-server.sh 7244 headless`, or the one the tests use). The bench recreates
 * its own database (BENCH_DATABASE_NAME, default challenges_bench_submissions), starts its own
 * worker child process on a fresh task queue (as test/setup/global-setup.ts does) and its own API
 * process (bench/lib/processes.ts; rate limits off), then measures with a rubric judge:
 *
 *  1. latency: POST → result stored (result.finalized committed, observed via LISTEN), at 5 submissions/s;
 *  2. throughput: submissions posted open-loop at BENCH_RATE/s (default 60) for BENCH_SECONDS (60),
 *     judged submissions/s sustained, and that none was lost (every accepted one complete).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

import { Connection, Client as TemporalClient } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import { Client } from 'pg';
import { migrate } from '../src/db/migrate';
import { submissionWorkflowId } from '../src/domain/submissions/contract';
import { createPool } from '../src/db/pool';
import { createApiToken } from '../src/domain/identity';
import { postgresCpuMs, processCpuMs, temporalServerPid } from './lib/machine';
import { apiProcess, freePort } from './lib/processes';

const ROOT = path.resolve(__dirname, '..');
const DB_NAME = process.env.BENCH_DATABASE_NAME ?? 'challenges_bench_submissions';
const SERVER_URL = (process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/challenges').replace(
  /\/[^/]*$/,
  '',
);
const DATABASE_URL = `${SERVER_URL}/${DB_NAME}`;
// Offered above the pipeline's capacity (≈ 40–45/s here), so `sustained` measures the capacity.
const RATE = Number(process.env.BENCH_RATE ?? 60);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const LATENCY_RATE = 5;
const LATENCY_SECONDS = Number(process.env.BENCH_LATENCY_SECONDS ?? 20);
const AGENTS = 50;

const env: NodeJS.ProcessEnv = {
  ...process.env,
  NODE_ENV: 'development',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  DATABASE_URL,
  DATABASE_POOL_MAX: '20',
  TEMPORAL_TASK_QUEUE: `bench-${process.pid}-${Date.now()}`,
  RATE_LIMIT_DISABLED: '1',
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function summary(values: number[]): string {
  const s = [...values].sort((a, b) => a - b);
  return `n=${s.length} p50=${percentile(s, 50).toFixed(1)} ms p90=${percentile(s, 90).toFixed(1)} ms p99=${percentile(s, 99).toFixed(1)} ms max=${s[s.length - 1]?.toFixed(1)} ms`;
}

/** The Temporal dev server's pid (the CLI process serving `port`), to charge its CPU per submission. */
async function recreateDatabase(): Promise<void> {
  const admin = new Client({ connectionString: `${SERVER_URL}/postgres` });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${DB_NAME}" WITH (FORCE)`);
  await admin.end();
  await migrate(DATABASE_URL);
}

function startWorker(): Promise<ChildProcess> {
  // BENCH_WORKER_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") are node flags for the worker only.
  const nodeArgs = process.env.BENCH_WORKER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  // One process (`--import tsx`, no tsx CLI parent): its pid is the worker whose CPU is measured.
  const args = [...nodeArgs, '--import', 'tsx', 'src/worker.ts'];
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr!.on('data', (chunk: Buffer) => process.env.BENCH_VERBOSE && process.stderr.write(chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('worker not ready in 120 s')), 120_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('WORKER_READY')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
  });
}

async function main(): Promise<void> {
  console.log(
    `database ${DB_NAME}, Temporal ${env.TEMPORAL_ADDRESS ?? '(config default)'}, task queue ${env.TEMPORAL_TASK_QUEUE}`,
  );
  await recreateDatabase();
  const worker = await startWorker();
  // The API runs as its own process (bench/lib): the load below never shares its event loop.
  const port = await freePort();
  const api = apiProcess({
    env: { ...env, PORT: String(port) },
    logDir: path.join(ROOT, '.data/bench/logs'),
    name: 'api-submissions',
  });
  await api.start();
  const base = `http://127.0.0.1:${port}`;
  const db = createPool(DATABASE_URL, 10);

  try {
    // ---- seed: agents with tokens, one rubric challenge without quotas in the way --------------
    const tokens: string[] = [];
    for (let i = 0; i < AGENTS; i++) {
      // One user per agent: a user may hold at most 25 active tokens.
      const user = (
        await db.query<{ id: string }>(
          `INSERT INTO users (subject, name) VALUES ($1, 'bench') RETURNING id`,
          [`bench|${i}`],
        )
      ).rows[0];
      const agent = (
        await db.query<{ id: string }>(
          'INSERT INTO agents (owner_user_id, name) VALUES ($1, $2) RETURNING id',
          [user.id, `bench-${i}`],
        )
      ).rows[0];
      const { token } = await createApiToken(
        db,
        { userId: user.id, name: 'bench' },
        {
          name: 'bench',
          scopes: ['challenge:enter', 'submission:create', 'submission:read'],
          expiresInDays: null,
          agentId: agent.id,
          sandbox: false,
        },
      );
      tokens.push(token);
    }
    const judge = {
      kind: 'rubric',
      criteria: [
        { name: 'answer', weight: 3, check: { type: 'contains', value: '42' } },
        { name: 'concise', weight: 1, check: { type: 'length', max: 200 } },
        { name: 'style', weight: 1, hidden: true, check: { type: 'regex', pattern: '^The' } },
      ],
    };
    const challengeId = (
      await db.query<{ id: string }>(
        `INSERT INTO challenges (title, category, format, weight_class_id, status, judge, max_submissions_per_session)
         VALUES ('bench', 'coding', 'solo', 'open', 'active', $1, 1000000) RETURNING id`,
        [JSON.stringify(judge)],
      )
    ).rows[0].id;
    const sessions: string[] = [];
    for (const token of tokens) {
      const res = await fetch(`${base}/api/v1/challenges/${challengeId}/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      });
      sessions.push(((await res.json()) as { data: { session_id: string } }).data.session_id);
    }

    // ---- completion signal: result.finalized / submission.failed commits (LISTEN) ---------------
    const done = new Map<string, number>();
    const listener = new Client({ connectionString: DATABASE_URL });
    await listener.connect();
    await listener.query('LISTEN outbox_events');
    const lookup = new Client({ connectionString: DATABASE_URL });
    await lookup.connect();
    // Each NOTIFY's time is taken on arrival; which submission it finished is looked up in batches
    // (one statement per 20 ms, not one per event), so the benchmark adds little to PostgreSQL's load.
    let arrived: { id: string; at: number }[] = [];
    const lookupBatch = async () => {
      const batch = arrived;
      arrived = [];
      if (batch.length === 0) return;
      const at = new Map(batch.map((b) => [b.id, b.at]));
      const rows = await lookup.query<{ id: string; submission_id: string }>(
        `SELECT id, payload->>'submission_id' AS submission_id FROM outbox_events
          WHERE id = ANY($1::uuid[]) AND event_type IN ('result.finalized', 'submission.failed')`,
        [batch.map((b) => b.id)],
      );
      for (const row of rows.rows)
        if (!done.has(row.submission_id)) done.set(row.submission_id, at.get(row.id)!);
    };
    let lookups = Promise.resolve();
    const lookupTimer = setInterval(() => {
      lookups = lookups.then(lookupBatch);
    }, 20);
    listener.on('notification', (msg) => {
      if (msg.payload) arrived.push({ id: msg.payload, at: performance.now() });
    });

    let n = 0;
    const post = async (): Promise<{ id: string; t0: number } | null> => {
      const i = n++ % tokens.length;
      const t0 = performance.now();
      const res = await fetch(`${base}/api/v1/sessions/${sessions[i]}/submissions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens[i]}`, 'content-type': 'application/json' },
        body: JSON.stringify({ content: `The answer is 42 (#${n})` }),
      });
      if (res.status !== 201) {
        console.error('POST failed', res.status, await res.text());
        return null;
      }
      return { id: ((await res.json()) as { data: { id: string } }).data.id, t0 };
    };

    /** Posts open-loop at `rate`/s for `seconds`; returns the accepted submissions. */
    const drive = async (rate: number, seconds: number) => {
      const started = performance.now();
      const inflight: Promise<{ id: string; t0: number; postMs: number } | null>[] = [];
      for (let k = 0; k < rate * seconds; k++) {
        const due = started + (k * 1000) / rate;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        inflight.push(post().then((r) => (r ? { ...r, postMs: performance.now() - r.t0 } : null)));
      }
      const accepted = (await Promise.all(inflight)).filter(
        (r): r is { id: string; t0: number; postMs: number } => r !== null,
      );
      return { accepted, started, postedFor: performance.now() - started };
    };

    const waitAll = async (ids: string[], timeoutMs: number) => {
      const deadline = performance.now() + timeoutMs;
      while (ids.some((id) => !done.has(id)) && performance.now() < deadline) await sleep(20);
    };

    // Warm-up (bundles, connections, JIT).
    const warm = await drive(5, 2);
    await waitAll(
      warm.accepted.map((a) => a.id),
      30_000,
    );

    // ---- 1. latency at 5/s ---------------------------------------------------------------------
    const lat = await drive(LATENCY_RATE, LATENCY_SECONDS);
    await waitAll(
      lat.accepted.map((a) => a.id),
      60_000,
    );
    const latencies = lat.accepted.filter((a) => done.has(a.id)).map((a) => done.get(a.id)! - a.t0);
    console.log(`\n[latency] ${LATENCY_RATE} submissions/s for ${LATENCY_SECONDS} s`);
    console.log(`  POST → result stored: ${summary(latencies)}`);
    console.log(`  POST response time:   ${summary(lat.accepted.map((a) => a.postMs))}`);

    // ---- 2. throughput ---------------------------------------------------------------------------
    // CPU of every process on the path, charged per judged submission: where the two cores go.
    const temporalPid = temporalServerPid(env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233');
    const cpuNow = () => ({
      api: processCpuMs(api.pid),
      worker: processCpuMs(worker.pid),
      temporal: processCpuMs(temporalPid),
      postgres: postgresCpuMs(),
      bench: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
    });
    const cpuBefore = cpuNow();
    const tp = await drive(RATE, SECONDS);
    const ids = tp.accepted.map((a) => a.id);
    await waitAll(ids, 180_000);
    const cpuAfter = cpuNow();
    const finishedAt = Math.max(...ids.filter((id) => done.has(id)).map((id) => done.get(id)!));
    const judgedInWindow = ids.filter(
      (id) => done.has(id) && done.get(id)! - tp.started <= SECONDS * 1000,
    ).length;
    const statuses = await db.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM submissions WHERE id = ANY($1::uuid[]) GROUP BY status`,
      [ids],
    );
    const tally = Object.fromEntries(statuses.rows.map((r) => [r.status, r.n]));
    const lost = ids.length - (tally.complete ?? 0);
    const tpLatencies = tp.accepted.filter((a) => done.has(a.id)).map((a) => done.get(a.id)! - a.t0);
    console.log(
      `\n[throughput] offered ${RATE}/s for ${SECONDS} s: ${tp.accepted.length} accepted (${((tp.accepted.length * 1000) / tp.postedFor).toFixed(1)}/s posted)`,
    );
    console.log(
      `  judged within the ${SECONDS} s window: ${judgedInWindow} (${(judgedInWindow / SECONDS).toFixed(1)}/s)`,
    );
    console.log(
      `  all judged after ${((finishedAt - tp.started) / 1000).toFixed(1)} s: ${((ids.length * 1000) / (finishedAt - tp.started)).toFixed(1)} judged/s sustained`,
    );
    console.log(`  statuses: ${JSON.stringify(tally)}; lost (not complete): ${lost}`);
    console.log(`  POST → result stored under load: ${summary(tpLatencies)}`);
    console.log(`  POST response time under load:   ${summary(tp.accepted.map((a) => a.postMs))}`);
    const perSubmission = (k: keyof typeof cpuBefore) => (cpuAfter[k] - cpuBefore[k]) / ids.length;
    console.log(
      `  CPU per judged submission: API ${perSubmission('api').toFixed(2)} ms, worker ${perSubmission('worker').toFixed(2)} ms, ` +
        `Temporal server ${perSubmission('temporal').toFixed(2)} ms, PostgreSQL ${perSubmission('postgres').toFixed(2)} ms, ` +
        `load generator ${perSubmission('bench').toFixed(2)} ms`,
    );

    // ---- 3. what one submission costs Temporal: its workflow's history --------------------------
    const connection = await Connection.connect({ address: env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233' });
    try {
      const temporal = new TemporalClient({ connection });
      const history = await temporal.workflow.getHandle(submissionWorkflowId(ids[0], 0)).fetchHistory();
      const events = history.events ?? [];
      const counts = new Map<string, number>();
      for (const e of events) {
        const type = String(proto.api.enums.v1.EventType[e.eventType ?? 0]).replace(/^EVENT_TYPE_/, '');
        counts.set(type, (counts.get(type) ?? 0) + 1);
      }
      console.log(
        `  history per submission workflow: ${events.length} events (${[...counts].map(([t, c]) => `${t} ×${c}`).join(', ')})`,
      );
    } finally {
      await connection.close();
    }
    clearInterval(lookupTimer);
    await lookups;
    await listener.end();
    await lookup.end();
  } finally {
    await api.stop();
    await db.end();
    worker.kill('SIGTERM');
    await new Promise((r) => worker.once('exit', r));
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
