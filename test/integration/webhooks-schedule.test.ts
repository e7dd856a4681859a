import { randomUUID } from 'node:crypto';
import { startDeliveryWorkflow } from '../../src/domain/webhooks/workflows';
import { DEFAULT_RETRY_DELAYS_MS } from '../../src/webhooks/schedule';
import { newUser } from '../helpers/factories';
import { startTestServer, type TestServer } from '../helpers/server';
import { attemptRows, createWebhook, deliveryRow, manualDeliveries, startReceiver, userIdOf, type TestReceiver } from '../helpers/webhook-factories';

/**
 * The spec's real schedule (attempts at 0 s, +1 s, +5 s, +30 s), started with explicit delays as
 * workflow input; ~36 s. Each attempt must land within ±250 ms of its planned offset.
 */
let server: TestServer;
let receiver: TestReceiver;
beforeAll(async () => {
  server = await startTestServer();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await server.close();
});

test('real schedule: attempts at 0, 1, 6 and 36 s (±250 ms), then dead_letter', async () => {
  receiver.setDefault({ status: 503 });
  const user = await newUser(server);
  const sub = await createWebhook(server, user.jwt, { url: receiver.url, events: ['submission.completed'] }); // owner-scoped: no broadcast from other suites
  const userId = await userIdOf(server.deps.db, user.subject);
  const { deliveryIds } = await manualDeliveries(server.deps.db, { type: 'submission.completed', payload: { submission_id: randomUUID() }, ownerUserId: userId });
  const id = deliveryIds[0]!;
  const client = await server.deps.temporal();
  expect(DEFAULT_RETRY_DELAYS_MS).toEqual([1000, 5000, 30000]);
  await startDeliveryWorkflow(client, server.config, { id, series: 0, workflow_id: `webhook-delivery-${id}` }, { retryDelaysMs: [...DEFAULT_RETRY_DELAYS_MS], timeoutMs: 10_000 });
  const result = await client.workflow.getHandle(`webhook-delivery-${id}`).result();
  expect(result).toEqual({ status: 'dead_letter', attempts: 4 });

  const planned = [0, 1000, 6000, 36000];
  const requests = receiver.requests.filter((r) => r.headers['x-svc-delivery-id'] === id);
  const received = requests.map((r) => r.receivedAt - requests[0]!.receivedAt);
  const attempts = await attemptRows(server.deps.db, id);
  const recorded = attempts.map((a) => a.attempted_at.getTime() - attempts[0].attempted_at.getTime());
  expect(requests).toHaveLength(4);
  for (let i = 0; i < 4; i++) {
    expect(Math.abs(received[i]! - planned[i]!)).toBeLessThanOrEqual(250);
    expect(Math.abs(recorded[i]! - planned[i]!)).toBeLessThanOrEqual(250);
  }
  // Each gap is at least the spec's delay.
  for (let i = 1; i < 4; i++) expect(recorded[i]! - recorded[i - 1]!).toBeGreaterThanOrEqual(DEFAULT_RETRY_DELAYS_MS[i - 1]!);
  // A fresh Standard Webhooks timestamp per attempt: the last is ~36 s after the first.
  const stamps = requests.map((r) => Number(r.headers['webhook-timestamp']));
  expect(stamps[3]! - stamps[0]!).toBeGreaterThanOrEqual(35);
  expect(stamps[3]! - stamps[0]!).toBeLessThanOrEqual(37);
  expect(await deliveryRow(server.deps.db, id)).toMatchObject({ status: 'dead_letter', attempt_count: 4, last_status_code: 503 });
  console.log(`real schedule offsets (ms): received ${received.join(', ')}; recorded ${recorded.join(', ')}; subscription ${sub.id}`);
}, 90_000);
