/**
 * Webhook delivery benchmark (on demand, not part of jest):
 *
 *   npx tsx bench/webhooks.ts
 *
 * Real pieces: its own PostgreSQL database (BENCH_DATABASE_NAME, default challenges_bench_webhooks,
 * recreated), a Temporal dev server (BENCH_TEMPORAL_PORT, default 7277, in memory; started here when none
 * answers), the real worker process (outbox dispatcher + delivery workflows) on its own task queue,
 * and a loopback receiver answering 200. Events are written with emitEvent (a real outbox row +
 * NOTIFY at commit), exactly as the API does.
 *
 * 1. Latency: BENCH_LATENCY_EVENTS (default 300) events at BENCH_RATE per second (default 20), one
 *    transaction each; event-to-receiver latency = receipt time − commit time. Targets p50 ≤ 150 ms.
 * 2. Throughput: BENCH_BURST_EVENTS (default 1000) events committed as fast as possible (in
 *    transactions of 50), deliveries/s = deliveries / (last receipt − first commit). Target ≥ 100/s.
 * 3. Retry lateness: BENCH_RETRY_DELIVERIES (default 20) deliveries to a receiver answering 503, on
 *    the worker's real schedule (attempts at 0, +1 s, +5 s, +30 s, then dead letter); lateness of
 *    each retry = (its recorded send − the previous attempt's) − the delay. The service promises a
 *    retry is never early (the tests assert that, exactly); how late it is under load is this figure.
 * Every received body is checked against X-Svc-Signature. It also prints how the burst's first attempts
 * ran (first-attempt batch workflows vs. one workflow per delivery); WEBHOOK_FIRST_ATTEMPT_BATCH_MAX=1
 * measures the one-workflow-per-delivery path.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Pool } from 'pg';
import { insertSubscription } from '../src/db/queries/webhook-subscriptions';
import { withTransaction } from '../src/db/pool';
import { emitEvent } from '../src/events/outbox';
import { deriveSecretBoxKey, encryptSecret, secretPrefix } from '../src/webhook-transport/secret-box';
import { loadAverage, machineInfo } from './lib/machine';
import {
  portOpen,
  ROOT,
  sleep,
  temporalProcess,
  waitFor,
  workerProcess,
  type ManagedProcess,
} from './lib/processes';
import { startReceiver } from './lib/receiver';
import { recreateDatabase } from './lib/stack';
import { round, summarize } from './lib/stats';

const DATABASE = process.env.BENCH_DATABASE_NAME ?? 'challenges_bench_webhooks';
const TEMPORAL_PORT = Number(process.env.BENCH_TEMPORAL_PORT ?? 7277);
const LATENCY_EVENTS = Number(process.env.BENCH_LATENCY_EVENTS ?? 300);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const BURST_EVENTS = Number(process.env.BENCH_BURST_EVENTS ?? 1000);
const RETRY_DELIVERIES = Number(process.env.BENCH_RETRY_DELIVERIES ?? 20);
const SECRET = 'bench-webhook-secret-0123456789';
const WEBHOOK_SECRET_KEY = 'bench-webhook-key-0123456789abcdef';

/** CPU seconds (user + system) used so far by a process, from /proc (Linux). */
function cpuSeconds(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks
  } catch {
    return NaN;
  }
}

async function main(): Promise<void> {
  const logDir = path.join(ROOT, '.data', DATABASE, 'logs');
  const databaseUrl = await recreateDatabase(DATABASE);
  let temporal: ManagedProcess | null = null;
  if (!(await portOpen('127.0.0.1', TEMPORAL_PORT))) {
    temporal = temporalProcess({ port: TEMPORAL_PORT, logDir });
    await temporal.start();
  }
  const env = {
    ...process.env,
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: `127.0.0.1:${TEMPORAL_PORT}`,
    TEMPORAL_TASK_QUEUE: `bench-webhooks-${process.pid}-${Date.now()}`,
    WEBHOOK_ALLOW_PRIVATE: '1',
    WEBHOOK_SECRET_KEY,
  };
  // BENCH_CPU_PROF=1: the worker writes a V8 CPU profile next to its log when it stops.
  const nodeArgs =
    process.env.BENCH_CPU_PROF === '1' ? ['--cpu-prof', '--cpu-prof-dir', path.join(logDir, 'profiles')] : [];
  const worker = workerProcess({ env, logDir, name: 'worker', nodeArgs });
  const receiver = await startReceiver();
  const db = new Pool({ connectionString: databaseUrl, max: 10 });
  try {
    await worker.start();

    const user = await db.query<{ id: string }>(
      `INSERT INTO users (subject, name) VALUES ($1, 'bench') RETURNING id`,
      [`bench|${randomUUID()}`],
    );
    const userId = user.rows[0]!.id;
    await insertSubscription(db, {
      ownerUserId: userId,
      url: `${receiver.url}/bench`,
      events: ['challenge.retired'],
      secretEncrypted: encryptSecret(SECRET, deriveSecretBoxKey(WEBHOOK_SECRET_KEY)),
      secretPrefix: secretPrefix(SECRET),
    });
    receiver.secrets.set('/bench', SECRET);
    // A receiver that always fails, for the retry schedule (its own event type, so phases 1–2 skip
    // it). One subscription (and owner) per failing delivery: the spec disables a subscription
    // after 10 consecutive failures, so 20 deliveries failing into one subscription disabled it
    // after their first attempts and no retry was ever made ("0 retries of 20").
    const failingOwners: string[] = [];
    for (let i = 0; i < RETRY_DELIVERIES; i++) {
      const owner = await db.query<{ id: string }>(
        `INSERT INTO users (subject, name) VALUES ($1, 'bench') RETURNING id`,
        [`bench|${randomUUID()}`],
      );
      failingOwners.push(owner.rows[0]!.id);
      await insertSubscription(db, {
        ownerUserId: owner.rows[0]!.id,
        url: `${receiver.url}/failing-${i}`,
        events: ['challenge.published'],
        secretEncrypted: encryptSecret(SECRET, deriveSecretBoxKey(WEBHOOK_SECRET_KEY)),
        secretPrefix: secretPrefix(SECRET),
      });
    }
    receiver.statusFor = (p) => (p.startsWith('/failing-') ? 503 : 200);

    const committedAt = new Map<string, number>();
    const latencies = new Map<string, number>();
    receiver.onDelivery = (d) => {
      const key = d.body?.data?.challenge_id as string | undefined;
      const t0 = key ? committedAt.get(key) : undefined;
      if (key && t0 !== undefined && !latencies.has(key)) latencies.set(key, d.receivedAt - t0);
    };

    const emitOne = async (): Promise<string> => {
      const challengeId = randomUUID();
      await withTransaction(db, (tx) =>
        emitEvent(tx, {
          type: 'challenge.retired',
          payload: { challenge_id: challengeId },
          ownerUserId: userId,
        }),
      );
      committedAt.set(challengeId, Date.now());
      return challengeId;
    };

    // Warm-up: first workflow tasks, the subscription-health workflow, connection pools.
    const warm: string[] = [];
    for (let i = 0; i < 20; i++) warm.push(await emitOne());
    await waitFor('warm-up deliveries', () => warm.every((k) => latencies.has(k)), 60_000);

    // 1. Latency at a steady rate.
    const latencyKeys: string[] = [];
    const loadBefore = loadAverage();
    const interval = 1000 / RATE;
    const start = Date.now();
    for (let i = 0; i < LATENCY_EVENTS; i++) {
      const due = start + i * interval;
      if (due > Date.now()) await sleep(due - Date.now());
      latencyKeys.push(await emitOne());
    }
    await waitFor('latency-phase deliveries', () => latencyKeys.every((k) => latencies.has(k)), 120_000);
    const latency = summarize(latencyKeys.map((k) => latencies.get(k)!));

    // 2. Throughput: a burst.
    const cpuBefore = {
      worker: cpuSeconds(worker.pid),
      temporal: cpuSeconds(temporal?.pid),
      bench: process.cpuUsage(),
    };
    const burstKeys: string[] = [];
    const burstStart = Date.now();
    for (let i = 0; i < BURST_EVENTS; i += 50) {
      const batch = Array.from({ length: Math.min(50, BURST_EVENTS - i) }, () => randomUUID());
      await withTransaction(db, async (tx) => {
        for (const challengeId of batch)
          await emitEvent(tx, {
            type: 'challenge.retired',
            payload: { challenge_id: challengeId },
            ownerUserId: userId,
          });
      });
      const now = Date.now();
      for (const k of batch) committedAt.set(k, now);
      burstKeys.push(...batch);
    }
    const burstCommitted = Date.now();
    await waitFor('burst deliveries', () => burstKeys.every((k) => latencies.has(k)), 300_000, 50);
    const lastReceipt = Math.max(...burstKeys.map((k) => committedAt.get(k)! + latencies.get(k)!));
    const burstSeconds = (lastReceipt - burstStart) / 1000;
    const burst = summarize(burstKeys.map((k) => latencies.get(k)!));
    const loadAfter = loadAverage();
    const benchCpu = process.cpuUsage(cpuBefore.bench);
    const cpu = {
      worker: cpuSeconds(worker.pid) - cpuBefore.worker,
      temporal: cpuSeconds(temporal?.pid) - cpuBefore.temporal,
      bench: (benchCpu.user + benchCpu.system) / 1e6,
    };

    // The last attempts are recorded just after the receiver answered.
    await waitFor(
      'delivery rows recorded',
      async () =>
        (await db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status <> 'delivered'`))
          .rows[0].n === 0,
      30_000,
    ).catch(() => undefined);
    const invalid = receiver.deliveries.filter((d) => d.signatureValid !== true).length;
    const duplicates =
      receiver.deliveries.length - new Set(receiver.deliveries.map((d) => d.deliveryId)).size;
    const dbCounts = await db.query(
      `SELECT status, count(*)::int AS n FROM webhook_deliveries GROUP BY status ORDER BY status`,
    );
    // How the burst's first attempts ran: in first-attempt batch workflows, or one workflow each.
    const burstRows = await db.query<{ batch_workflow_id: string | null }>(
      `SELECT d.batch_workflow_id FROM webhook_deliveries d JOIN outbox_events e ON e.id = d.event_id
        WHERE e.payload->>'challenge_id' = ANY($1::text[])`,
      [burstKeys],
    );
    const batchIds = new Set(burstRows.rows.map((r) => r.batch_workflow_id).filter((id) => id !== null));
    const unbatched = burstRows.rows.filter((r) => r.batch_workflow_id === null).length;

    // 3. Retry lateness on the real schedule (attempts at 0, +1 s, +5 s, +30 s), deliveries side by side.
    const retryLoadBefore = loadAverage();
    const retryKeys: string[] = [];
    for (let i = 0; i < RETRY_DELIVERIES; i++) {
      const challengeId = randomUUID();
      await withTransaction(db, (tx) =>
        emitEvent(tx, {
          type: 'challenge.published',
          // The payload the service emits (lifecycle.ts): fan-out refuses one without `status`
          // ("outbox event not deliverable"), and then no delivery exists to dead-letter.
          payload: { challenge_id: challengeId, status: 'active' },
          ownerUserId: failingOwners[i]!,
        }),
      );
      retryKeys.push(challengeId);
    }
    const retryRows = async () =>
      (
        await db.query<{ delivery_id: string; status: string; sent: string[] }>(
          `SELECT d.id AS delivery_id, d.status,
                  array_agg((extract(epoch FROM a.attempted_at) * 1000)::bigint::text ORDER BY a.series, a.attempt_number) AS sent
             FROM webhook_deliveries d JOIN outbox_events e ON e.id = d.event_id
             JOIN webhook_attempts a ON a.delivery_id = d.id
            WHERE e.payload->>'challenge_id' = ANY($1::text[])
            GROUP BY d.id, d.status`,
          [retryKeys],
        )
      ).rows;
    // Fail fast and say why when the events make no deliveries (an invalid payload is only logged).
    await waitFor(
      'retry deliveries created (none: see the worker log for "outbox event not deliverable")',
      async () => (await retryRows()).length === RETRY_DELIVERIES,
      30_000,
      200,
    );
    await waitFor(
      'retry series dead-lettered',
      async () => (await retryRows()).filter((r) => r.status === 'dead_letter').length === RETRY_DELIVERIES,
      180_000,
      500,
    );
    const delays = [1000, 5000, 30000];
    const lateness: number[] = [];
    const byDelay: number[][] = delays.map(() => []);
    let early = 0;
    for (const row of await retryRows()) {
      const sent = row.sent.map(Number);
      for (let i = 1; i < sent.length; i++) {
        const late = sent[i]! - sent[i - 1]! - delays[i - 1]!;
        if (late < 0) early += 1;
        lateness.push(late);
        byDelay[i - 1]?.push(late);
      }
    }
    const retryLate = summarize(lateness);
    // Every delivery must have run its whole schedule; fewer retries means the series was cut
    // short (a disabled subscription, an abandoned series) and the figure would say nothing.
    const expectedRetries = RETRY_DELIVERIES * delays.length;
    if (lateness.length !== expectedRetries) {
      console.error(
        `retry series cut short: ${lateness.length} retries recorded, ${expectedRetries} expected`,
      );
      process.exitCode = 1;
    }

    const m = machineInfo();
    console.log(
      `machine: ${m.nproc} cores (${m.cpuModel}), ${m.memory}; node ${m.node}; PostgreSQL ${m.postgres}; load ${loadBefore} → ${loadAfter}`,
    );
    console.log(
      `latency (${latency.count} events at ${RATE}/s, event commit → receiver): p50 ${round(latency.p50)} ms, p90 ${round(latency.p90)} ms, ` +
        `p99 ${round(latency.p99)} ms, max ${round(latency.max)} ms (target p50 ≤ 150 ms)`,
    );
    console.log(
      `throughput (${BURST_EVENTS} events committed in ${burstCommitted - burstStart} ms): ${round(BURST_EVENTS / burstSeconds)} deliveries/s ` +
        `(first commit → last receipt ${round(burstSeconds, 2)} s; target ≥ 100/s); burst latency p50 ${round(burst.p50)} ms, p99 ${round(burst.p99)} ms`,
    );
    console.log(
      `burst workflows: ${batchIds.size} first-attempt batches (${round((burstRows.rows.length - unbatched) / Math.max(1, batchIds.size), 1)} deliveries each on average), ` +
        `${unbatched} deliveries with a workflow of their own (WEBHOOK_FIRST_ATTEMPT_BATCH_MAX=${process.env.WEBHOOK_FIRST_ATTEMPT_BATCH_MAX ?? 'default 50'})`,
    );
    const perDelivery = (sec: number) =>
      Number.isFinite(sec) ? `${round((sec * 1000) / BURST_EVENTS, 2)} ms` : 'n/a (shared server)';
    console.log(
      `CPU per delivery during the burst: worker ${perDelivery(cpu.worker)}, Temporal server ${perDelivery(cpu.temporal)}, ` +
        `bench (emitter + receiver) ${perDelivery(cpu.bench)}`,
    );
    console.log(
      `checks: ${receiver.deliveries.length} received, ${invalid} with an invalid signature, ${duplicates} duplicates; ` +
        `deliveries by status: ${dbCounts.rows.map((r) => `${r.status} ${r.n}`).join(', ')}`,
    );
    console.log(
      `retry lateness (${lateness.length} retries of ${RETRY_DELIVERIES} failing deliveries, schedule 1 s, 5 s, 30 s): ` +
        `p50 ${round(retryLate.p50)} ms, p99 ${round(retryLate.p99)} ms, max ${round(retryLate.max)} ms; early ${early}; load ${retryLoadBefore} → ${loadAverage()}`,
    );
    console.log(
      `retry lateness by delay: ${delays
        .map((d, i) => {
          const l = summarize(byDelay[i]!);
          return `${d / 1000} s: p50 ${round(l.p50)} ms, p99 ${round(l.p99)} ms (n=${byDelay[i]!.length})`;
        })
        .join('; ')}`,
    );
    if (invalid > 0 || duplicates > 0 || early > 0) process.exitCode = 1;
  } finally {
    await worker.stop();
    await receiver.close();
    await db.end();
    if (temporal) await temporal.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
