/**
 * Live-event benchmark (not part of jest):
 *
 *   npx tsx bench/stream.ts [--agents 50] [--events 40] [--delay-ms 30000] [--temporal 127.0.0.1:7244]
 *
 * Starts the API (rate limits off) and a real worker as child processes, on a database and a task
 * queue of their own, enters N agents into one challenge, and measures:
 *   1. ingest: POST /api/v1/events/stream throughput with all agents posting concurrently
 *      (each agent sequentially, as a connector does), plus request latency p50/p99;
 *   2. relay: released_at − received_at of every event (p50 / p99 / max), i.e. how precisely the
 *      spectator-relay workflow honours the delay (target: delay ± 500 ms at p99).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import net from 'node:net';
import { Client } from 'pg';
import { mintSessionJwt } from '../src/auth/jwt';
import { loadConfig } from '../src/config';
import { migrate } from '../src/db/migrate';
import { createPool } from '../src/db/pool';
import { lazyTemporalClient } from '../src/temporal-client/client';

const ROOT = path.resolve(__dirname, '..');

const { values } = parseArgs({
  options: {
    agents: { type: 'string', default: '50' },
    events: { type: 'string', default: '40' },
    'delay-ms': { type: 'string', default: '30000' },
    temporal: { type: 'string', default: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7244' },
    database: { type: 'string', default: 'challenges_bench_connector' },
  },
});
const AGENTS = Number(values.agents);
const EVENTS_PER_AGENT = Number(values.events);
const DELAY_MS = Number(values['delay-ms']);
const DATABASE_URL = `postgres://postgres@127.0.0.1:5432/${values.database}`;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

async function recreateDatabase(): Promise<void> {
  const admin = new Client({ connectionString: DATABASE_URL.replace(/\/[^/]+$/, '/postgres') });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${values.database}" WITH (FORCE)`);
  await admin.end();
  await migrate(DATABASE_URL);
}

function startChild(
  script: string,
  env: NodeJS.ProcessEnv,
  ready: () => Promise<boolean>,
  readyLine?: string,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [require.resolve('tsx/cli'), script], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let done = false;
    let log = '';
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearInterval(probe);
      if (err) reject(err);
      else resolve(child);
    };
    const timer = setTimeout(
      () => finish(new Error(`${script} not ready in 120 s: ${log.slice(-2000)}`)),
      120_000,
    );
    const probe = setInterval(() => void ready().then((ok) => ok && !readyLine && finish()), 250);
    child.stdout!.on('data', (d: Buffer) => {
      log += d.toString();
      if (readyLine && d.toString().includes(readyLine)) finish();
    });
    child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    child.once('exit', (code) => finish(new Error(`${script} exited (${code}): ${log.slice(-2000)}`)));
  });
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

async function main(): Promise<void> {
  console.log(
    `bench: ${AGENTS} agents × ${EVENTS_PER_AGENT} events, spectator delay ${DELAY_MS} ms, Temporal ${values.temporal}`,
  );
  await recreateDatabase();
  const env = {
    ...process.env,
    NODE_ENV: 'test' as const,
    LOG_LEVEL: 'warn',
    DATABASE_URL,
    DATABASE_POOL_MAX: process.env.BENCH_POOL ?? '20',
    TEMPORAL_ADDRESS: values.temporal,
    TEMPORAL_TASK_QUEUE: `bench-stream-${process.pid}-${Date.now()}`,
    SPECTATOR_DELAY_MS: String(DELAY_MS),
    RATE_LIMIT_DISABLED: '1',
  };
  const port = await freePort();
  const worker = await startChild('src/worker.ts', env, async () => false, 'WORKER_READY');
  const api = await startChild('src/api/server.ts', { ...env, PORT: String(port), HOST: '127.0.0.1' }, () =>
    portOpen(port),
  );
  const config = loadConfig(env);
  const deps = { db: createPool(DATABASE_URL, 5), temporal: lazyTemporalClient(config) };
  const base = `http://127.0.0.1:${port}`;

  try {
    // Setup through the API: users, agents, connector keys; challenge and entries directly.
    const challenge = await deps.db.query<{ id: string }>(
      `INSERT INTO challenges (title, category, format, weight_class_id, status, judge)
       VALUES ('Bench challenge', 'coding', 'solo', 'open', 'active', '{"kind":"rubric","criteria":[{"name":"len","weight":1,"check":{"type":"length","min":1}}]}')
       RETURNING id`,
    );
    const challengeId = challenge.rows[0].id;
    const agents: { agentId: string; key: string }[] = [];
    for (let i = 0; i < AGENTS; i++) {
      const jwt = await mintSessionJwt(config.AUTH_JWT_SECRET, { sub: `bench|${i}`, name: `Bench ${i}` });
      const post = async (p: string, body: unknown) => {
        const res = await fetch(base + p, {
          method: 'POST',
          headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        if (!res.ok) throw new Error(`${p}: ${res.status} ${await res.text()}`);
        return ((await res.json()) as { data: Record<string, string> }).data;
      };
      const agent = await post('/api/v1/agents', { name: `bench-agent-${i}` });
      const key = await post(`/api/v1/agents/${agent.id}/keys`, {});
      await deps.db.query('INSERT INTO entries (challenge_id, agent_id) VALUES ($1, $2)', [
        challengeId,
        agent.id,
      ]);
      agents.push({ agentId: agent.id, key: key.key });
    }
    // Warm-up: one event per agent (connections, relay start), not measured.
    const send = async (a: { agentId: string; key: string }, n: number) => {
      const t0 = performance.now();
      const res = await fetch(`${base}/api/v1/events/stream`, {
        method: 'POST',
        headers: { 'x-service-api-key': a.key, 'content-type': 'application/json' },
        body: JSON.stringify({
          challengeId,
          agentId: a.agentId,
          event: {
            type: n % 5 === 0 ? 'progress' : 'thinking',
            timestamp: new Date().toISOString(),
            summary: `step ${n}`,
            percent: n % 101,
          },
        }),
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`stream: ${res.status} ${text}`);
      return performance.now() - t0;
    };
    await Promise.all(agents.map((a) => send(a, 0)));

    const latencies: number[] = [];
    const started = performance.now();
    await Promise.all(
      agents.map(async (a) => {
        for (let n = 1; n <= EVENTS_PER_AGENT; n++) latencies.push(await send(a, n));
      }),
    );
    const elapsedS = (performance.now() - started) / 1000;
    const total = AGENTS * EVENTS_PER_AGENT;
    latencies.sort((x, y) => x - y);
    const ingest = {
      events: total,
      seconds: Number(elapsedS.toFixed(2)),
      events_per_second: Math.round(total / elapsedS),
      latency_ms: {
        p50: Number(percentile(latencies, 50).toFixed(1)),
        p99: Number(percentile(latencies, 99).toFixed(1)),
      },
    };
    console.log(
      `ingest: ${total} events in ${ingest.seconds} s = ${ingest.events_per_second} events/s (p50 ${ingest.latency_ms.p50} ms, p99 ${ingest.latency_ms.p99} ms)`,
    );

    // Gap-free check while we are at it.
    const gaps = await deps.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT agent_id, max(seq_num) AS m, count(*) AS c FROM live_events WHERE challenge_id = $1 GROUP BY agent_id) s WHERE m <> c`,
      [challengeId],
    );

    console.log(`relay: waiting for every event to be released (delay ${DELAY_MS} ms)…`);
    const all = total + AGENTS;
    const deadline = Date.now() + DELAY_MS + 120_000;
    for (;;) {
      const r = await deps.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM live_events WHERE challenge_id = $1 AND released_at IS NOT NULL',
        [challengeId],
      );
      if (r.rows[0].n >= all) break;
      if (Date.now() > deadline) throw new Error(`only ${r.rows[0].n}/${all} released`);
      await new Promise((res) => setTimeout(res, 500));
    }
    const lags = await deps.db.query<{ lag: number }>(
      `SELECT EXTRACT(EPOCH FROM (released_at - received_at)) * 1000 AS lag FROM live_events WHERE challenge_id = $1 ORDER BY 1`,
      [challengeId],
    );
    const sorted = lags.rows.map((r) => Number(r.lag));
    const relay = {
      events: sorted.length,
      delay_ms: DELAY_MS,
      release_lag_ms: {
        min: Math.round(sorted[0]),
        p50: Math.round(percentile(sorted, 50)),
        p99: Math.round(percentile(sorted, 99)),
        max: Math.round(sorted[sorted.length - 1]),
      },
      early: sorted.filter((l) => l < DELAY_MS).length,
    };
    const relayHandle = (await deps.temporal.get()).workflow.getHandle(`spectator-relay-${challengeId}`);
    const history = await relayHandle.fetchHistory();
    // The bench's worker goes away with it: do not leave the relay waiting on a dead task queue.
    await relayHandle.terminate('bench finished').catch(() => undefined);
    const activities = (history.events ?? []).filter(
      (e) => e.markerRecordedEventAttributes || e.activityTaskScheduledEventAttributes,
    ).length;
    const signals = (history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes).length;
    console.log(
      `relay: release lag min ${relay.release_lag_ms.min} / p50 ${relay.release_lag_ms.p50} / p99 ${relay.release_lag_ms.p99} / max ${relay.release_lag_ms.max} ms ` +
        `(target ${DELAY_MS} ± 500 ms at p99; released early: ${relay.early}); current run: ${activities} activities, ${signals} signals`,
    );
    console.log(
      JSON.stringify(
        { agents: AGENTS, ingest, seq_gaps: gaps.rows[0].n, relay, relay_run: { activities, signals } },
        null,
        2,
      ),
    );
  } finally {
    await deps.temporal.close();
    await deps.db.end();
    for (const child of [api, worker]) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error('bench failed:', err);
    process.exit(1);
  },
);
