import { randomUUID } from 'node:crypto';
import { startDeliveryWorkflow, startDeliveryWorkflows } from '../../src/domain/webhooks/workflow-start';
import { IN_ACTIVITY_WAIT_MAX_MS } from '../../src/domain/webhooks/contract';
import { eventually, newUser } from '../helpers/factories';
import { startTestServer, type TestServer } from '../helpers/server';
import {
  attemptRows,
  createWebhook,
  deliveryRow,
  expectAttemptTimesKeepDelays,
  manualDeliveries,
  manualFirstAttemptBatch,
  startReceiver,
  userIdOf,
  type TestReceiver,
} from '../helpers/webhook-factories';

/**
 * A retry series end to end (HTTP receiver, database, worker), in milliseconds: delays of 200 ms,
 * 1,200 ms (above IN_ACTIVITY_WAIT_MAX_MS: a Temporal timer, then the activity waits the rest) and
 * 400 ms, given as workflow input; ~2 s. No retry goes out (or reaches the receiver) sooner than its
 * delay after the previous attempt's request went out, exactly, and the attempts keep their order.
 * The spec's default (0 s, +1 s, +5 s, +30 s) is proved on its pure function
 * (test/unit/domain/webhooks/schedule.test.ts) and reaches the workflow as its default input
 * (test/service/workflows/webhooks.test.ts); waiting its real 36 s here proved nothing more. How late
 * attempts are under load is a timing, not a promise: `npm run bench` measures it ("Webhook retry
 * lateness"). For a delivery with its own workflow and, side by side, for one whose first attempt
 * ran in a batch.
 */
const DELAYS = [200, 1200, 400];
let server: TestServer;
let receiver: TestReceiver;
let batchFailing: TestReceiver;
let batchHealthy: TestReceiver;
beforeAll(async () => {
  server = await startTestServer();
  receiver = await startReceiver();
  batchFailing = await startReceiver();
  batchHealthy = await startReceiver();
});
afterAll(async () => {
  await Promise.all([receiver.close(), batchFailing.close(), batchHealthy.close()]);
  await server.close();
});

/** Waits for the series' end and checks its four attempts against DELAYS (never early, in order). */
async function expectRealSchedule(id: string, r: TestReceiver): Promise<string> {
  const client = await server.deps.temporal();
  const handle = client.workflow.getHandle(`webhook-delivery-${id}`);
  // A batch starts the delivery's own workflow only once attempt 1 has failed.
  await eventually(() => handle.describe().then(() => true), 20_000);
  expect(await handle.result()).toEqual({ status: 'dead_letter', attempts: 4 });

  const requests = r.requests.filter((q) => q.headers['x-svc-delivery-id'] === id);
  const attempts = await attemptRows(server.deps.db, id);
  expect(requests).toHaveLength(4);
  // Never early (exact): recorded gaps ≥ the delays, each retry received no sooner than its delay
  // after the previous request went out, each request received at or after its recorded time.
  expectAttemptTimesKeepDelays(requests, attempts, DELAYS);
  // In order: attempts numbered 1–4 in one series, each sent and received after the one before.
  expect(attempts.map((a) => [a.series, a.attempt_number])).toEqual([
    [0, 1],
    [0, 2],
    [0, 3],
    [0, 4],
  ]);
  const firstSent = attempts[0].attempted_at.getTime();
  const received = requests.map((q) => q.receivedAt - firstSent);
  const recorded = attempts.map((a) => a.attempted_at.getTime() - firstSent);
  for (let i = 1; i < 4; i++) {
    expect(recorded[i]!).toBeGreaterThan(recorded[i - 1]!);
    expect(received[i]!).toBeGreaterThan(received[i - 1]!);
  }
  // A fresh Standard Webhooks timestamp per attempt (whole seconds): the last at least the series'
  // whole seconds after the first.
  const stamps = requests.map((q) => Number(q.headers['webhook-timestamp']));
  expect(stamps[3]! - stamps[0]!).toBeGreaterThanOrEqual(Math.floor(DELAYS.reduce((a, b) => a + b) / 1000));
  expect(await deliveryRow(server.deps.db, id)).toMatchObject({
    status: 'dead_letter',
    attempt_count: 4,
    last_status_code: 503,
  });
  return `received ${received.join(', ')}; recorded ${recorded.join(', ')}`;
}

test('a retry series end to end: attempts at 0, +200, +1,200, +400 ms (never early, in order), then dead_letter; also when attempt 1 ran in a batch', async () => {
  expect(DELAYS[1]!).toBeGreaterThan(IN_ACTIVITY_WAIT_MAX_MS);
  const schedule = { retryDelaysMs: DELAYS, timeoutMs: 10_000 };
  const client = await server.deps.temporal();

  // 1. A delivery with its own workflow from attempt 1.
  receiver.setDefault({ status: 503 });
  const user = await newUser(server);
  await createWebhook(server, user.jwt, { url: receiver.url, events: ['submission.completed'] }); // owner-scoped: no broadcast from other suites
  const userId = await userIdOf(server.deps.db, user.subject);
  const { deliveryIds } = await manualDeliveries(server.deps.db, {
    type: 'submission.completed',
    payload: { submission_id: randomUUID() },
    ownerUserId: userId,
  });
  const id = deliveryIds[0]!;
  await startDeliveryWorkflow(
    client,
    server.config,
    { id, series: 0, workflow_id: `webhook-delivery-${id}` },
    schedule,
  );

  // 2. Side by side: attempt 1 made by a first-attempt batch, then handed over for the retries.
  batchFailing.setDefault({ status: 503 });
  const batchUser = await newUser(server);
  const failingSub = await createWebhook(server, batchUser.jwt, {
    url: batchFailing.url,
    events: ['submission.completed'],
  });
  await createWebhook(server, batchUser.jwt, { url: batchHealthy.url, events: ['submission.completed'] });
  const batchUserId = await userIdOf(server.deps.db, batchUser.subject);
  const batch = await manualFirstAttemptBatch(server.deps.db, {
    type: 'submission.completed',
    payload: { submission_id: randomUUID() },
    ownerUserId: batchUserId,
  });
  const handedOver = batch.deliveries.find((d) => d.subscription_id === failingSub.id)!;
  const errors: unknown[] = [];
  await startDeliveryWorkflows(
    client,
    server.deps.db,
    server.config,
    batch.deliveries,
    (err) => errors.push(err),
    schedule,
  );
  expect(errors).toEqual([]);

  const [single, batched] = await Promise.all([
    expectRealSchedule(id, receiver),
    expectRealSchedule(handedOver.id, batchFailing),
  ]);
  expect(batchHealthy.requests).toHaveLength(1);
  console.log(`series offsets (ms): own workflow ${single}; batch then hand-over ${batched}`);
}, 120_000);
