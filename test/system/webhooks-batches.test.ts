/**
 * Batched first attempts: deliveries created by one dispatch pass have their first attempts made by
 * one `webhook-delivery-batch-<first id>` workflow; a failed first attempt is handed over to the
 * delivery's own `webhook-delivery-<id>` workflow, which runs the timed retries and the dead letter.
 * Real worker (outbox dispatcher + workflows), real Temporal, loopback receivers.
 */
import { randomUUID } from 'node:crypto';
import { verify as verifyGithubStyle } from '@octokit/webhooks-methods';
import { WorkflowNotFoundError } from '@temporalio/client';
import { createDeliverySteps } from '../../src/domain/webhooks/delivery';
import { withTransaction } from '../../src/db/pool';
import { deliveryWorkflowId } from '../../src/domain/webhooks/contract';
import type { WebhookDeliveryResult, WebhookFirstAttemptsResult } from '../../src/domain/webhooks/contract';
import { startDeliveryWorkflows } from '../../src/domain/webhooks/workflow-start';
import { emitEvent } from '../../src/events/outbox';
import { eventually, type TestUser } from '../helpers/factories';
import { startTestServer, type TestServer } from '../helpers/server';
import {
  attemptRows,
  deliveriesOfEvent,
  deliveryRow,
  expectAttemptTimesKeepDelays,
  manualFirstAttemptBatch,
  webhookFixtures,
  newWebhookOwner,
  subscriptionRow,
  TEST_SECRET,
  type TestReceiver,
} from '../helpers/webhook-factories';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
const { receiver, subscribe } = webhookFixtures(() => server);

const owner = () => newWebhookOwner(server);

/** One subscription per receiver, all of one owner, all to `event`: one event fans out to one delivery each. */
async function subscribeAll(user: TestUser, receivers: TestReceiver[], event: string): Promise<string[]> {
  const subs: string[] = [];
  for (const r of receivers) {
    subs.push((await subscribe(user, { url: r.url, events: [event] })).id);
  }
  return subs;
}

const payload = () => ({ submission_id: randomUUID(), submission_status: 'complete' });
const temporal = () => server.deps.temporal();
/** How a delivery's own attempt series (the original, not a replay) ended. */
const deliveryOutcome = async (deliveryId: string) =>
  (await temporal()).workflow.getHandle(deliveryWorkflowId(deliveryId, 0)).result();
/** The activities as the worker builds them, called here outside any workflow (as a retry would run them). */
const webhookActivities = () =>
  createDeliverySteps({
    config: server.config,
    db: server.deps.db,
    logger: server.deps.logger,
    temporal,
  });

async function workflowExists(workflowId: string): Promise<boolean> {
  try {
    await (await temporal()).workflow.getHandle(workflowId).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

async function startBatch(deliveries: Parameters<typeof startDeliveryWorkflows>[3]): Promise<void> {
  const errors: unknown[] = [];
  const started = await startDeliveryWorkflows(
    await temporal(),
    server.deps.db,
    server.config,
    deliveries,
    (err) => errors.push(err),
  );
  expect(errors).toEqual([]);
  expect(started).toBe(deliveries.length);
}

describe('first attempts in batches', () => {
  test('deliveries of one dispatch pass share one batch workflow; a lone delivery gets its own workflow', async () => {
    const receivers = [await receiver(), await receiver(), await receiver()];
    const { user, userId } = await owner();
    const subs = await subscribeAll(user, receivers, 'submission.completed');

    // Two events in one transaction: one dispatch pass sees both, 2 × 3 deliveries.
    const eventIds = await withTransaction(server.deps.db, async (tx) => [
      await emitEvent(tx, { type: 'submission.completed', payload: payload(), ownerUserId: userId }),
      await emitEvent(tx, { type: 'submission.completed', payload: payload(), ownerUserId: userId }),
    ]);
    const rows = await eventually(async () => {
      const all = [
        ...(await deliveriesOfEvent(server.deps.db, eventIds[0]!)),
        ...(await deliveriesOfEvent(server.deps.db, eventIds[1]!)),
      ];
      return all.length === 6 && all.every((d) => d.status === 'delivered') ? all : undefined;
    });
    for (const r of receivers) {
      expect(r.requests).toHaveLength(2);
      for (const q of r.requests)
        expect(await verifyGithubStyle(TEST_SECRET, q.rawBody, q.headers['x-svc-signature']!)).toBe(true);
    }
    expect(
      new Set(receivers.flatMap((r) => r.requests.map((q) => q.headers['x-svc-delivery-id']))).size,
    ).toBe(6);

    // Batched: named after a member, and no per-delivery workflow for a delivery that succeeded at once.
    const batchIds = new Set(rows.map((d) => d.batch_workflow_id));
    expect(
      [...batchIds].every((id) => typeof id === 'string' && id.startsWith('webhook-delivery-batch-whd_')),
    ).toBe(true);
    const results = await Promise.all(
      [...batchIds].map(
        async (id) =>
          (await temporal()).workflow.getHandle(id).result() as Promise<WebhookFirstAttemptsResult>,
      ),
    );
    const ours = results
      .flatMap((r) => r.deliveries)
      .filter((d) => rows.some((row) => row.id === d.deliveryId));
    expect(ours.map((d) => [d.outcome, d.statusCode])).toEqual(Array(6).fill(['delivered', 200]));
    expect(await workflowExists(deliveryWorkflowId(rows[0].id, 0))).toBe(false);
    for (const d of rows)
      expect((await attemptRows(server.deps.db, d.id)).map((a) => [a.attempt_number, a.success])).toEqual([
        [1, true],
      ]);
    for (const sub of subs)
      expect((await subscriptionRow(server.deps.db, sub)).last_delivery_at).not.toBeNull();

    // A pass with a single delivery: its own workflow from the first attempt.
    await server.deps.db.query(
      `UPDATE webhook_subscriptions SET status = 'inactive' WHERE id = ANY($1::uuid[])`,
      [subs.slice(1)],
    );
    const lone = await withTransaction(server.deps.db, (tx) =>
      emitEvent(tx, { type: 'submission.completed', payload: payload(), ownerUserId: userId }),
    );
    const [single] = await eventually(async () => {
      const found = await deliveriesOfEvent(server.deps.db, lone);
      return found[0]?.status === 'delivered' ? found : undefined;
    });
    if (single.batch_workflow_id === null) {
      const result = (await (
        await temporal()
      ).workflow
        .getHandle(deliveryWorkflowId(single.id, 0))
        .result()) as WebhookDeliveryResult;
      expect(result).toEqual({ status: 'delivered', attempts: 1 });
    } else {
      // The worker and database are shared by the suites running beside this one: a broadcast
      // (challenge.*) delivery of theirs created in the same dispatch pass makes it a batch of two.
      // Then it is not alone, and that is the only reason it may be batched.
      const members = await server.deps.db.query(
        'SELECT id FROM webhook_deliveries WHERE batch_workflow_id = $1',
        [single.batch_workflow_id],
      );
      expect(members.rows.length).toBeGreaterThan(1);
    }
  });

  test('a failed first attempt is retried by the batch after the short first delay, then handed over to the delivery workflow: timed retries, success or dead letter', async () => {
    const healthy = await receiver();
    const recovering = await receiver();
    recovering.enqueue({ status: 500, body: 'boom' }, { status: 204 });
    const failing = await receiver();
    failing.setDefault({ status: 503 });
    const { user, userId } = await owner();
    const [healthySub, recoveringSub, failingSub] = await subscribeAll(
      user,
      [healthy, recovering, failing],
      'submission.completed',
    );

    const batch = await manualFirstAttemptBatch(server.deps.db, {
      type: 'submission.completed',
      payload: payload(),
      ownerUserId: userId,
    });
    expect(batch.deliveries).toHaveLength(3);
    expect(batch.batchWorkflowId).toBe(`webhook-delivery-batch-${batch.deliveries[0]!.id}`);
    await startBatch(batch.deliveries);

    const bySub = (subscriptionId: string | undefined) =>
      batch.deliveries.find((d) => d.subscription_id === subscriptionId)!;
    const batchResult = (await (
      await temporal()
    ).workflow
      .getHandle(batch.batchWorkflowId)
      .result()) as WebhookFirstAttemptsResult;
    await failing.waitForRequests(4);
    await recovering.waitForRequests(2);
    const [healthyRow, recoveringRow, failingRow] = [
      bySub(healthySub),
      bySub(recoveringSub),
      bySub(failingSub),
    ];
    expect(batchResult.deliveries.map((d) => [d.deliveryId, d.outcome, d.statusCode]).sort()).toEqual(
      [
        [healthyRow.id, 'delivered', 200],
        // The second attempt (100 ms after the first, like the spec's 1 s) is the batch's own: no
        // hand-over (a workflow start and its first task) stands between the two.
        [recoveringRow.id, 'delivered', 204],
        [failingRow.id, 'retrying', 503],
      ].sort(),
    );

    // The handed-over series continues after attempt 2, on the configured schedule (100, 200, 300 ms).
    expect(await workflowExists(deliveryWorkflowId(recoveringRow.id, 0))).toBe(false);
    expect(await deliveryOutcome(failingRow.id)).toEqual({
      status: 'dead_letter',
      attempts: 4,
    });
    expect(await workflowExists(deliveryWorkflowId(healthyRow.id, 0))).toBe(false);

    const delays = server.config.WEBHOOK_RETRY_DELAYS_MS;
    const failingAttempts = await attemptRows(server.deps.db, failingRow.id);
    expect(failingAttempts.map((a) => [a.attempt_number, a.status_code])).toEqual([
      [1, 503],
      [2, 503],
      [3, 503],
      [4, 503],
    ]);
    // Attempts 1-2 were the batch's, 3-4 the delivery workflow's: the same exact promise across the hand-over.
    expectAttemptTimesKeepDelays(failing.requests, failingAttempts, delays);
    expectAttemptTimesKeepDelays(
      recovering.requests,
      await attemptRows(server.deps.db, recoveringRow.id),
      delays,
    );
    expect(new Set(failing.requests.map((q) => q.headers['x-svc-delivery-id']))).toEqual(
      new Set([failingRow.id]),
    );
    expect(new Set(failing.requests.map((q) => q.rawBody))).toEqual(new Set([failingRow.body]));
    expect(
      (await attemptRows(server.deps.db, recoveringRow.id)).map((a) => [
        a.attempt_number,
        a.status_code,
        a.success,
      ]),
    ).toEqual([
      [1, 500, false],
      [2, 204, true],
    ]);
    expect(healthy.requests).toHaveLength(1);
    expect(await deliveryRow(server.deps.db, healthyRow.id)).toMatchObject({
      status: 'delivered',
      attempt_count: 1,
    });
    expect(await deliveryRow(server.deps.db, recoveringRow.id)).toMatchObject({
      status: 'delivered',
      attempt_count: 2,
    });
    expect(await deliveryRow(server.deps.db, failingRow.id)).toMatchObject({
      status: 'dead_letter',
      attempt_count: 4,
      last_status_code: 503,
    });
    // Every failed attempt, the batch's included, reached the subscription-health workflow.
    await eventually(async () => (await subscriptionRow(server.deps.db, failingSub!)).failure_count === 4);
  });

  test('the batch activity is idempotent: run again, it sends nothing twice and the hand-over is not repeated', async () => {
    const healthy = await receiver();
    const failing = await receiver();
    failing.setDefault({ status: 500 });
    const { user, userId } = await owner();
    await subscribeAll(user, [healthy, failing], 'submission.completed');
    const batch = await manualFirstAttemptBatch(server.deps.db, {
      type: 'submission.completed',
      payload: payload(),
      ownerUserId: userId,
    });

    // The activity as Temporal would retry it after a crash (same input, twice), outside any workflow.
    const activities = webhookActivities();
    const input = { batchWorkflowId: batch.batchWorkflowId, retryDelaysMs: [60_000], timeoutMs: 2000 };
    const first = await activities.deliverFirstAttempts(input);
    const again = await activities.deliverFirstAttempts(input);
    expect(again).toEqual(first);
    expect(first.deliveries.map((d) => [d.outcome, d.statusCode]).sort()).toEqual([
      ['delivered', 200],
      ['retrying', 500],
    ]);
    expect(healthy.requests).toHaveLength(1);
    expect(failing.requests).toHaveLength(1);
    const failed = first.deliveries.find((d) => d.outcome === 'retrying')!;
    const handle = (await temporal()).workflow.getHandle(deliveryWorkflowId(failed.deliveryId, 0));
    const described = await handle.describe();
    expect(described.status.name).toBe('RUNNING'); // waiting 60 s for attempt 2; one run only
    await handle.terminate('test over');

    // A member replayed meanwhile belongs to its replay's workflow: the batch leaves it alone.
    await server.deps.db.query('UPDATE webhook_deliveries SET series = 1 WHERE id = $1', [failed.deliveryId]);
    const afterReplay = await activities.deliverFirstAttempts(input);
    expect(afterReplay.deliveries.find((d) => d.deliveryId === failed.deliveryId)).toMatchObject({
      outcome: 'skipped',
    });
    expect(failing.requests).toHaveLength(1);
  });

  test('a batch whose workflow never started is started by the sweeper', async () => {
    const receivers = [await receiver(), await receiver()];
    const { user, userId } = await owner();
    await subscribeAll(user, receivers, 'submission.completed');
    const batch = await manualFirstAttemptBatch(
      server.deps.db,
      { type: 'submission.completed', payload: payload(), ownerUserId: userId },
      { unstarted: true },
    );
    await Promise.all(receivers.map((r) => r.waitForRequests(1, 20_000)));
    for (const d of batch.deliveries) {
      await eventually(async () => (await deliveryRow(server.deps.db, d.id)).status === 'delivered');
      expect((await deliveryRow(server.deps.db, d.id)).workflow_started_at).not.toBeNull();
    }
    expect(
      (
        (await (
          await temporal()
        ).workflow
          .getHandle(batch.batchWorkflowId)
          .result()) as WebhookFirstAttemptsResult
      ).deliveries,
    ).toHaveLength(2);
    expect(receivers.map((r) => r.requests.length)).toEqual([1, 1]);
  });

  test('last resort: members are handed over whole to their own workflows, which skip an attempt already recorded', async () => {
    const untouched = await receiver();
    const attempted = await receiver();
    attempted.enqueue({ status: 500 }); // the batch's attempt, before its activity gave up
    const { user, userId } = await owner();
    const [untouchedSub, attemptedSub] = await subscribeAll(
      user,
      [untouched, attempted],
      'submission.completed',
    );
    const batch = await manualFirstAttemptBatch(server.deps.db, {
      type: 'submission.completed',
      payload: payload(),
      ownerUserId: userId,
    });
    const activities = webhookActivities();
    const attemptedRow = batch.deliveries.find((d) => d.subscription_id === attemptedSub)!;
    const untouchedRow = batch.deliveries.find((d) => d.subscription_id === untouchedSub)!;
    // Attempt 1 of one member, as the batch made it.
    await activities.deliverWebhookAttempt({
      deliveryId: attemptedRow.id,
      series: 0,
      attemptNumber: 1,
      totalAttempts: 4,
      timeoutMs: 2000,
      nextDelayMs: 100,
      notBeforeMs: null,
    });
    expect([untouched.requests.length, attempted.requests.length]).toEqual([0, 1]);

    const handedOver = await activities.handOverBatchMembers({
      batchWorkflowId: batch.batchWorkflowId,
      retryDelaysMs: [100, 200, 300],
      timeoutMs: 2000,
    });
    expect(handedOver).toBe(2);
    expect(await deliveryOutcome(untouchedRow.id)).toEqual({
      status: 'delivered',
      attempts: 1,
    });
    expect(await deliveryOutcome(attemptedRow.id)).toEqual({
      status: 'delivered',
      attempts: 2,
    });
    expect(
      (await attemptRows(server.deps.db, attemptedRow.id)).map((a) => [a.attempt_number, a.status_code]),
    ).toEqual([
      [1, 500],
      [2, 200],
    ]);
    expect(
      (await attemptRows(server.deps.db, untouchedRow.id)).map((a) => [a.attempt_number, a.status_code]),
    ).toEqual([[1, 200]]);
    expect([untouched.requests.length, attempted.requests.length]).toEqual([1, 2]);
  });
});
