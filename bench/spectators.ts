/**
 * Live spectators at scale (issue 13, item 4): N concurrent SSE spectators (default 5,000) on ONE
 * API process watching one challenge while 50 agents stream at the spec's per-key limit (30
 * events/min each, 25 events/s in all), so about N × 25 event deliveries per second leave the API.
 *
 * Measures: every spectator receives every event in order (ids 1…last, no gap, no repeat);
 * release → spectator latency (p50/p99, from `released_at` to receipt, sampled streams); feed
 * database reads per release in the API (its /metrics against the releases' NOTIFYs counted
 * here); PostgreSQL transactions/s while idle with 0 and with N streams open (one fallback poll
 * per process and challenge, not per stream); API RSS growth per open stream.
 *
 * The API runs with RATE_LIMIT_DISABLED=1: agents post at exactly their per-key limit, where a
 * window boundary would turn a few posts into 429s (the limiter's cost is measured by reads.ts).
 * Spectators connect from several loopback addresses (127.0.0.2, …) so per-IP caps hold.
 *
 *   npx tsx bench/spectators.ts      (env: BENCH_SPECTATORS=5000, BENCH_SPECTATOR_SECONDS=30,
 *                                     BENCH_SPECTATOR_ADDRESSES=250, BENCH_DATABASE_NAME, BENCH_TEMPORAL_PORT)
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { newActiveChallenge, newAgent, newUser } from './lib/fixtures';
import { loadAverage } from './lib/machine';
import { ROOT, sleep, tsxCommand } from './lib/processes';
import { fmt, renderTable, type BenchRow } from './lib/report';
import { startStack, type Stack } from './lib/stack';
import { summarize } from './lib/stats';

const SPECTATORS = Number(process.env.BENCH_SPECTATORS ?? 5_000);
const AGENTS = Number(process.env.BENCH_SPECTATOR_AGENTS ?? 50);
/** Per agent per minute: the spec's per-key limit on the stream route. */
const EVENTS_PER_AGENT_PER_MIN = 30;
const SECONDS = Number(process.env.BENCH_SPECTATOR_SECONDS ?? 30);
const ADDRESSES = Number(process.env.BENCH_SPECTATOR_ADDRESSES ?? 250);
const CLIENT_PROCESSES = 2;
const DELAY_MS = Number(process.env.BENCH_SPECTATOR_DELAY_MS ?? 2_000);
const IDLE_WINDOW_MS = 10_000;
const TARGET_P99_MS = 250;

function rssKiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
}

async function metric(apiUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${apiUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : NaN;
}

async function transactions(db: Client): Promise<number> {
  const res = await db.query<{ n: string }>(
    'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()',
  );
  return Number(res.rows[0].n);
}

/**
 * Transactions/s in this database over a quiet window. Idle backends flush their statistics up to
 * 10 s late (PGSTAT_IDLE_INTERVAL), so the window starts after that much quiet.
 */
async function idleTransactionsPerSecond(db: Client): Promise<number> {
  await sleep(11_000);
  await db.query('SELECT pg_stat_clear_snapshot()');
  const before = await transactions(db);
  await sleep(IDLE_WINDOW_MS);
  await db.query('SELECT pg_stat_clear_snapshot()');
  return ((await transactions(db)) - before - 1) / (IDLE_WINDOW_MS / 1000);
}

interface ChildResult {
  open: number;
  failed: number;
  firstError?: string;
  ended: number;
  outOfOrder: number;
  received: number;
  minLast: number;
  maxLast: number;
  minReceived: number;
  latenciesMs: number[];
}

function startSpectators(url: string, streams: number, addresses: string[], maxMs: number) {
  const { command, args } = tsxCommand('bench/lib/spectator-child.ts');
  const child = spawn(
    command,
    [...args, JSON.stringify({ url, streams, addresses, sampleEvery: 50, maxMs, openConcurrency: 50 })],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  let open = 0;
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
    const m = /SPECTATORS_OPEN (\d+)[^\n]*\n(?![\s\S]*SPECTATORS_OPEN)/.exec(out);
    if (m) open = Number(m[1]);
  });
  const done = new Promise<ChildResult>((resolve, reject) => {
    child.once('exit', () => {
      const line = out.split('\n').find((l) => l.startsWith('SPECTATORS_RESULT '));
      if (line) resolve(JSON.parse(line.slice('SPECTATORS_RESULT '.length)));
      else reject(new Error(`spectator client exited without a result: ${out.slice(-500)}`));
    });
  });
  return { child, opened: () => open, done };
}

export async function benchSpectators(stack: Stack, log: (m: string) => void): Promise<BenchRow[]> {
  const db = new Client({ connectionString: stack.databaseUrl });
  await db.connect();
  const listener = new Client({ connectionString: stack.databaseUrl });
  await listener.connect();
  try {
    const admin = await newUser('admin');
    const challengeId = await newActiveChallenge(stack.client, admin, { title: 'Spectator bench' });
    const owner = await newUser();
    const agents: { agentId: string; key: string }[] = [];
    for (let i = 0; i < AGENTS; i++) {
      const agent = await newAgent(stack.client, owner, { name: `spectated-${i}`, tokenCount: 0 });
      const key = await stack.client.expect(201, 'POST', `/api/v1/agents/${agent.agentId}/keys`, {
        auth: owner.jwt,
        body: {},
      });
      await db.query(`INSERT INTO entries (challenge_id, agent_id, status) VALUES ($1, $2, 'assigned')`, [
        challengeId,
        agent.agentId,
      ]);
      agents.push({ agentId: agent.agentId, key: key.data.key });
    }
    log(`${AGENTS} agents entered in challenge ${challengeId}`);

    // Releases are counted here, by the same NOTIFY the API's feeds wake on.
    let releases = 0;
    await listener.query('LISTEN live_events');
    listener.on('notification', (msg) => {
      if (msg.payload === challengeId) releases += 1;
    });

    const apiPid = stack.api.pid;
    const idleWithout = await idleTransactionsPerSecond(db);
    const rssBefore = rssKiB(apiPid);
    const url = `${stack.apiUrl}/api/v1/challenges/${challengeId}/live`;
    const addresses = Array.from(
      { length: ADDRESSES },
      (_, i) => `127.0.${Math.floor((i + 2) / 256)}.${(i + 2) % 256}`,
    );
    const perChild = Math.ceil(SPECTATORS / CLIENT_PROCESSES);
    const maxMs = (SECONDS + 120) * 1000 + 2 * IDLE_WINDOW_MS;
    const clients = Array.from({ length: CLIENT_PROCESSES }, (_, c) =>
      startSpectators(
        url,
        Math.min(perChild, SPECTATORS - c * perChild),
        addresses.filter((_, i) => i % CLIENT_PROCESSES === c),
        maxMs,
      ),
    );
    const openStarted = Date.now();
    for (;;) {
      const open = await metric(stack.apiUrl, 'spectator_streams_open');
      if (open >= SPECTATORS) break;
      if (Date.now() - openStarted > 120_000)
        throw new Error(`only ${open} of ${SPECTATORS} streams opened in 120 s`);
      await sleep(500);
    }
    log(`${SPECTATORS} streams open in ${((Date.now() - openStarted) / 1000).toFixed(1)} s`);
    await sleep(2_000);
    const rssOpen = rssKiB(apiPid);
    const idleWith = await idleTransactionsPerSecond(db);
    log(
      `idle transactions/s: ${idleWithout.toFixed(1)} without streams, ${idleWith.toFixed(1)} with ${SPECTATORS}`,
    );

    // 50 agents × 30 events/min, spread evenly: 25 events/s in all.
    const readsBefore = await metric(stack.apiUrl, 'spectator_feed_reads_total');
    const releasesBefore = releases;
    const intervalMs = 60_000 / EVENTS_PER_AGENT_PER_MIN;
    const perAgent = Math.floor((SECONDS * 1000) / intervalMs);
    let posted = 0;
    let postErrors = 0;
    const loadBefore = loadAverage();
    await Promise.all(
      agents.map(async (agent, a) => {
        await sleep((a * intervalMs) / AGENTS);
        const start = Date.now();
        for (let i = 0; i < perAgent; i++) {
          await sleep(Math.max(0, start + i * intervalMs - Date.now()));
          const res = await fetch(`${stack.apiUrl}/api/v1/events/stream`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-service-api-key': agent.key },
            body: JSON.stringify({
              challengeId,
              agentId: agent.agentId,
              event: {
                type: 'thinking',
                timestamp: new Date().toISOString(),
                summary: `step ${i} of agent ${a}: ${'x'.repeat(200)}`,
              },
            }),
          });
          if (res.status === 200 || res.status === 201) posted += 1;
          else postErrors += 1;
          await res.arrayBuffer();
        }
      }),
    );
    log(`posted ${posted} events (${postErrors} refused)`);
    // Everything released and delivered: the relay's delay, then the streams catch up.
    const lastSeq = async () =>
      Number(
        (
          await db.query<{ n: string }>(
            'SELECT coalesce(max(feed_seq), 0) AS n FROM live_events WHERE challenge_id = $1',
            [challengeId],
          )
        ).rows[0].n,
      );
    const deadline = Date.now() + DELAY_MS + 60_000;
    while ((await lastSeq()) < posted && Date.now() < deadline) await sleep(250);
    await sleep(DELAY_MS + 3_000);
    const readsAfter = await metric(stack.apiUrl, 'spectator_feed_reads_total');
    const evicted = await metric(stack.apiUrl, 'spectator_streams_evicted_total');
    const loadAfter = loadAverage();
    for (const c of clients) c.child.kill('SIGTERM');
    const results = await Promise.all(clients.map((c) => c.done));
    const last = await lastSeq();
    const open = results.reduce((a, r) => a + r.open, 0);
    const outOfOrder = results.reduce((a, r) => a + r.outOfOrder, 0);
    const minReceived = Math.min(...results.map((r) => r.minReceived));
    const received = results.reduce((a, r) => a + r.received, 0);
    const latency = summarize(results.flatMap((r) => r.latenciesMs));
    const releasesDuring = releases - releasesBefore;
    const readsPerRelease = (readsAfter - readsBefore) / Math.max(1, releasesDuring);
    const everyEvent = open === SPECTATORS && outOfOrder === 0 && minReceived === last && last === posted;
    const rssPerStream = (rssOpen - rssBefore) / SPECTATORS;
    log(
      `last feed_seq ${last}; ${fmt(received)} deliveries; min per stream ${minReceived}; out of order ${outOfOrder}; p99 ${latency.p99.toFixed(0)} ms; ` +
        `reads ${readsAfter - readsBefore} for ${releasesDuring} releases; evicted ${evicted}`,
    );
    const load = `${loadBefore.toFixed(2)}→${loadAfter.toFixed(2)}`;
    return [
      {
        figure: `${fmt(SPECTATORS)} SSE spectators on one API process, ${AGENTS} agents at 30 events/min each (${SECONDS} s)`,
        value: `${open} open; every stream got ${minReceived} of ${last} events in order (out of order ${outOfOrder}); ${fmt(received)} deliveries ≈ ${fmt(received / SECONDS)}/s`,
        target: 'every spectator receives every event, in order',
        ok: everyEvent,
        load: loadAfter,
        note: `${postErrors} posts refused; ${evicted} streams evicted; spectators from ${ADDRESSES} loopback addresses in ${CLIENT_PROCESSES} client processes; load ${load}; SPECTATOR_DELAY_MS=${DELAY_MS}, RATE_LIMIT_DISABLED=1`,
      },
      {
        figure: 'Release → spectator latency',
        value: `p50 ${fmt(latency.p50)} ms, p99 ${fmt(latency.p99)} ms, max ${fmt(latency.max)} ms (${fmt(latency.count)} samples, every 50th stream)`,
        target: `p99 ≤ ${TARGET_P99_MS} ms`,
        ok: latency.p99 <= TARGET_P99_MS,
        load: loadAfter,
        note: 'released_at (database clock) → parsed by the client; client processes share the two cores',
      },
      {
        figure: 'Feed database reads per release, per API process',
        value: `${readsPerRelease.toFixed(2)} (${fmt(readsAfter - readsBefore)} reads, ${fmt(releasesDuring)} releases)`,
        target: '= 1 (one read per release, not per stream)',
        ok: readsPerRelease <= 1.2,
        load: loadAfter,
        note: 'reads include the 2 s fallback poll (one per process and challenge); coalesced wakes can make it < 1',
      },
      {
        figure: 'Idle PostgreSQL transactions/s (no event flowing)',
        value: `${idleWith.toFixed(1)}/s with ${fmt(SPECTATORS)} streams open, ${idleWithout.toFixed(1)}/s with none`,
        target: 'independent of the number of streams',
        ok: idleWith - idleWithout <= 2,
        load: loadBefore,
        note: `${IDLE_WINDOW_MS / 1000} s windows; the worker's and relay's own activity included in both`,
      },
      {
        figure: 'API RSS growth per open stream',
        value: `${rssPerStream.toFixed(1)} KiB (${fmt(rssBefore / 1024)} → ${fmt(rssOpen / 1024)} MiB for ${fmt(SPECTATORS)} streams)`,
        target: '(reported)',
        ok: null,
        load: loadBefore,
        note: 'VmRSS of the API process before the streams and with all open and idle',
      },
    ];
  } finally {
    await listener.end().catch(() => undefined);
    await db.end();
  }
}

if (require.main === module) {
  (async () => {
    const stack = await startStack({
      label: 'bench-spectators',
      database: `${process.env.BENCH_DATABASE_NAME ?? 'challenges_bench'}_spectators`,
      temporalPort: Number(process.env.BENCH_TEMPORAL_PORT ?? 7266),
      env: { RATE_LIMIT_DISABLED: '1', SPECTATOR_DELAY_MS: String(DELAY_MS) },
      // BENCH_CPU_PROF=1: the API writes a V8 CPU profile to .data/bench/profiles/ when it stops.
      apiNodeArgs:
        process.env.BENCH_CPU_PROF === '1'
          ? ['--cpu-prof', '--cpu-prof-dir', path.join(ROOT, '.data/bench/profiles')]
          : [],
    });
    try {
      const rows = await benchSpectators(stack, (m) =>
        console.log(`[spectators ${new Date().toISOString().slice(11, 19)}] ${m}`),
      );
      console.log(renderTable(rows));
      console.log(`SPECTATORS_ROWS ${JSON.stringify(rows)}`);
    } finally {
      await stack.stop();
    }
  })().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
