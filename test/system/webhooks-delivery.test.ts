import { randomUUID } from 'node:crypto';
import { verify as verifyGithubStyle } from '@octokit/webhooks-methods';
import { WorkflowNotFoundError } from '@temporalio/client';
import { Webhook } from 'standardwebhooks';
import { createDeliverySteps } from '../../src/domain/webhooks/delivery';
import { runCli } from '../../src/cli/framework';
import { loadCommands } from '../../src/cli/index';
import { deliveryWorkflowId } from '../../src/domain/webhooks/contract';
import { insertDeliveries, type WebhookDeliveryRow } from '../../src/db/queries/webhook-deliveries';
import { dispatchPendingEvents } from '../../src/domain/webhooks/dispatch';
import { fanOutEvent } from '../../src/domain/webhooks/fan-out';
import type { OutboxEventRow } from '../../src/db/queries/outbox-events';
import {
  ATTEMPT_OUTCOME_SIGNAL,
  HEALTH_STATE_QUERY,
  healthWorkflowId,
  SUBSCRIPTION_HEALTH_WORKFLOW,
  type SubscriptionHealthState,
} from '../../src/domain/webhooks/contract';
import { startDeliveryWorkflow } from '../../src/domain/webhooks/workflow-start';
import { EVENT_TYPES, type EventType } from '../../src/events/types';
import { eventually, newAdmin, type TestUser } from '../helpers/factories';
import { startTestServer, type TestServer } from '../helpers/server';
import {
  attemptRows,
  deliveriesOfEvent,
  deliveryRow,
  emit,
  expectAttemptTimesKeepDelays,
  manualDeliveries,
  newWebhookOwner,
  webhookFixtures,
  subscriptionRow,
  TEST_SECRET,
  type ReceivedRequest,
  type TestReceiver,
} from '../helpers/webhook-factories';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
// Subscriptions are deactivated after each test: broadcast (challenge.*) events of later tests
// must not reach this test's receivers.
const fixtures = webhookFixtures(() => server);
const receiver = fixtures.receiver;
const subscribe = (user: TestUser, url: string, events: string[]) =>
  fixtures.subscribe(user, { url, events });

const owner = () => newWebhookOwner(server);

function verifySignatures(req: ReceivedRequest, secret = TEST_SECRET) {
  return Promise.all([
    verifyGithubStyle(secret, req.rawBody, req.headers['x-svc-signature']!),
    (() => {
      // Standard Webhooks: the key is the secret's UTF-8 bytes, given to the library base64-encoded.
      new Webhook(Buffer.from(secret, 'utf8').toString('base64')).verify(req.rawBody, req.headers);
      new Webhook(`whsec_${Buffer.from(secret, 'utf8').toString('base64')}`).verify(req.rawBody, req.headers);
      return true;
    })(),
  ]).then(([a, b]) => a && b);
}

const ids = {
  challenge: randomUUID(),
  submission: randomUUID(),
  agent: randomUUID(),
  session: randomUUID(),
  match: randomUUID(),
  result: randomUUID(),
};
/**
 * Requests about this file's events. challenge.* events are broadcast to every subscriber, so a
 * suite running beside this one and publishing a challenge reaches these receivers too.
 */
const ours = (requests: ReceivedRequest[]) =>
  requests.filter((q) => [ids.challenge, ids.submission, ids.session].some((id) => q.rawBody.includes(id)));
const waitForOurs = (r: TestReceiver, n: number) =>
  eventually(async () => (ours(r.requests).length >= n ? ours(r.requests) : undefined));
const when = '2030-01-02T03:04:05.000Z';

/**
 * Resolves once nothing more can be sent for a delivery's original series: its first-attempt batch
 * (when it had one) and its own workflow (when started) have ended. Checks that something did NOT
 * happen wait for this instead of sleeping "longer than the schedule".
 */
async function seriesEnded(deliveryId: string): Promise<void> {
  const client = await server.deps.temporal();
  const row = await deliveryRow(server.deps.db, deliveryId);
  // A batch hands a failed member over before it ends: after it, the member's own workflow exists if it ever will.
  if (row.batch_workflow_id) await client.workflow.getHandle(row.batch_workflow_id).result();
  const own = client.workflow.getHandle(deliveryWorkflowId(deliveryId, 0));
  try {
    await own.describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return;
    throw err;
  }
  await own.result();
}

/** Waits until every delivery of `eventIds` to `subscriptionIds` is `status` (n of them), and returns them. */
function deliveriesSettled(
  eventIds: string[],
  subscriptionIds: string[],
  n: number,
  status = 'delivered',
): Promise<WebhookDeliveryRow[]> {
  return eventually(async () => {
    const rows = (
      await server.deps.db.query<WebhookDeliveryRow>(
        'SELECT * FROM webhook_deliveries WHERE event_id = ANY($1::uuid[]) AND subscription_id = ANY($2::uuid[])',
        [eventIds, subscriptionIds],
      )
    ).rows;
    return rows.length === n && rows.every((d) => d.status === status) ? rows : undefined;
  });
}

const PAYLOADS: Record<EventType, Record<string, unknown>> = {
  'result.finalized': {
    submission_id: ids.submission,
    final_score: 87.5,
    result_state: 'scored',
    challenge_id: ids.challenge,
    internal: 'dropped',
  },
  'submission.completed': { submission_id: ids.submission, submission_status: 'complete' },
  'submission.received': { submission_id: ids.submission, challenge_id: ids.challenge, agent_id: ids.agent },
  'submission.queued': { submission_id: ids.submission, challenge_id: ids.challenge, agent_id: ids.agent },
  'submission.failed': {
    submission_id: ids.submission,
    challenge_id: ids.challenge,
    agent_id: ids.agent,
    reason: 'judge crashed',
  },
  'challenge.started': { challenge_id: ids.challenge, status: 'active', starts_at: when },
  'challenge.ended': { challenge_id: ids.challenge, status: 'complete', ends_at: when },
  'challenge.published': { challenge_id: ids.challenge, status: 'active' },
  'challenge.quarantined': { challenge_id: ids.challenge, reason: 'leaked answers' },
  'challenge.retired': { challenge_id: ids.challenge },
  'session.created': {
    session_id: ids.session,
    challenge_id: ids.challenge,
    agent_id: ids.agent,
    expires_at: null,
  },
  'breakdown.generated': { submission_id: ids.submission, challenge_id: ids.challenge },
  'match.started': {
    match_id: ids.match,
    challenge_id: ids.challenge,
    participants: [{ agent_id: ids.agent }],
  },
  'match.completed': {
    match_id: ids.match,
    challenge_id: ids.challenge,
    result_id: ids.result,
    rated: true,
    placements: [{ agent_id: ids.agent, rank: 1, outcome: 'win', score: 80 }],
  },
};

/** An event of `type` with its sample payload, owned by `ownerUserId` (through the real outbox). */
const emitOwned = (type: EventType, ownerUserId: string) =>
  emit(server.deps.db, { type, payload: PAYLOADS[type], ownerUserId });

/** The spec's table (section 6), plus id/timestamp everywhere and {id, event_type, timestamp, data} for the rest. */
const EXPECTED: Record<
  EventType,
  { keys: string[]; top?: Record<string, unknown>; data: Record<string, unknown> }
> = {
  'result.finalized': {
    keys: ['id', 'event_type', 'timestamp', 'submission_id', 'challenge_id', 'data'],
    top: { submission_id: ids.submission, challenge_id: ids.challenge },
    data: {
      submission_id: ids.submission,
      final_score: 87.5,
      result_state: 'scored',
      challenge_id: ids.challenge,
    },
  },
  'submission.completed': {
    keys: ['id', 'event_type', 'timestamp', 'submission_id', 'data'],
    top: { submission_id: ids.submission },
    data: { submission_id: ids.submission, submission_status: 'completed' },
  },
  'submission.received': {
    keys: ['id', 'event_type', 'timestamp', 'data'],
    data: {
      submission_id: ids.submission,
      challenge_id: ids.challenge,
      agent_id: ids.agent,
      submission_status: 'received',
    },
  },
  'submission.queued': {
    keys: ['id', 'event_type', 'timestamp', 'data'],
    data: {
      submission_id: ids.submission,
      challenge_id: ids.challenge,
      agent_id: ids.agent,
      submission_status: 'queued',
    },
  },
  'submission.failed': {
    keys: ['id', 'event_type', 'timestamp', 'data'],
    data: {
      submission_id: ids.submission,
      challenge_id: ids.challenge,
      agent_id: ids.agent,
      submission_status: 'failed',
      reason: 'judge crashed',
    },
  },
  'challenge.started': {
    keys: ['id', 'event_type', 'timestamp', 'data'],
    data: { challenge_id: ids.challenge, status: 'active', starts_at: when },
  },
  'challenge.ended': {
    keys: ['id', 'event_type', 'timestamp', 'data'],
    data: { challenge_id: ids.challenge, status: 'complete', ends_at: when },
  },
  'challenge.published': {
    keys: ['id', 'event_type', 'timestamp', 'challenge_id', 'data'],
    top: { challenge_id: ids.challenge },
    data: { challenge_id: ids.challenge, status: 'active' },
  },
  'challenge.quarantined': {
    keys: ['id', 'event_type', 'timestamp', 'data'],
    data: { challenge_id: ids.challenge, reason: 'leaked answers' },
  },
  'challenge.retired': {
    keys: ['id', 'event_type', 'timestamp', 'data'],
    data: { challenge_id: ids.challenge },
  },
  'session.created': {
    keys: ['id', 'event_type', 'timestamp', 'data'],
    data: { session_id: ids.session, challenge_id: ids.challenge, agent_id: ids.agent, expires_at: null },
  },
  'breakdown.generated': {
    keys: ['id', 'event_type', 'timestamp', 'data'],
    data: { submission_id: ids.submission, challenge_id: ids.challenge },
  },
  'match.started': {
    keys: ['id', 'event_type', 'timestamp', 'data'],
    data: { match_id: ids.match, challenge_id: ids.challenge, participants: [{ agent_id: ids.agent }] },
  },
  'match.completed': {
    keys: ['id', 'event_type', 'timestamp', 'data'],
    data: {
      match_id: ids.match,
      challenge_id: ids.challenge,
      result_id: ids.result,
      rated: true,
      placements: [{ agent_id: ids.agent, rank: 1, outcome: 'win', score: 80 }],
    },
  },
};

describe('fan-out and delivery', () => {
  test('every event type: exact body shape, every header, both signatures verified by third-party verifiers', async () => {
    const r = await receiver();
    const { user, userId } = await owner();
    const sub = await subscribe(user, r.url, [...EVENT_TYPES]);
    const emitted = new Map<string, { type: EventType; createdAt: Date }>();
    const eventIds: string[] = [];
    for (const type of EVENT_TYPES) {
      const eventId = await emit(server.deps.db, {
        type,
        payload: PAYLOADS[type],
        ownerUserId: type.startsWith('challenge.') ? null : userId,
      });
      eventIds.push(eventId);
      const row = await server.deps.db.query('SELECT created_at FROM outbox_events WHERE id = $1', [eventId]);
      emitted.set(type, { type, createdAt: row.rows[0].created_at });
    }
    const requests = await waitForOurs(r, EVENT_TYPES.length);
    // Every delivery recorded as delivered (the listing below shows them so): nothing more can be sent.
    await deliveriesSettled(eventIds, [sub.id], EVENT_TYPES.length);
    expect(ours(r.requests)).toHaveLength(EVENT_TYPES.length); // each exactly once
    const seen = new Set<string>();
    for (const req of requests) {
      const type = req.headers['x-svc-event'] as EventType;
      seen.add(type);
      expect(req.method).toBe('POST');
      expect(req.path).toBe('/hook');
      expect(req.headers['content-type']).toBe('application/json');
      expect(req.headers['x-svc-event-version']).toBe('1');
      expect(req.headers['x-svc-delivery-id']).toMatch(/^whd_[0-9a-f]{32}$/);
      expect(req.headers['webhook-id']).toBe(req.headers['x-svc-delivery-id']);
      // Signed when sent: not before the event existed, not after it was received (whole seconds).
      const signedAt = Number(req.headers['webhook-timestamp']);
      expect(signedAt).toBeGreaterThanOrEqual(Math.floor(emitted.get(type)!.createdAt.getTime() / 1000));
      expect(signedAt).toBeLessThanOrEqual(Math.floor(req.receivedAt / 1000));
      expect(req.headers['x-svc-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(req.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(await verifySignatures(req)).toBe(true);
      expect(await verifyGithubStyle('wrong-secret-000', req.rawBody, req.headers['x-svc-signature']!)).toBe(
        false,
      );

      const body = JSON.parse(req.rawBody);
      const expected = EXPECTED[type];
      expect({ type, keys: Object.keys(body) }).toEqual({ type, keys: expected.keys });
      expect(body).toEqual({
        id: req.headers['x-svc-delivery-id'],
        event_type: type,
        timestamp: emitted.get(type)!.createdAt.toISOString(),
        ...(expected.top ?? {}),
        data: expected.data,
      });
    }
    expect([...seen].sort()).toEqual([...EVENT_TYPES].sort());
    // The stored body is exactly what was sent.
    const listed = await server.request('GET', `/api/v1/webhooks/${sub.id}/deliveries`, { auth: user.jwt });
    const ourDeliveryIds = new Set(ours(r.requests).map((q) => q.headers['x-svc-delivery-id']));
    const listedOurs = listed.body.data.filter((d: { id: string }) => ourDeliveryIds.has(d.id));
    expect(listedOurs).toHaveLength(EVENT_TYPES.length);
    for (const d of listedOurs) {
      expect(d.status).toBe('delivered');
      expect(d.attempts).toEqual([
        {
          replay: 0,
          attempt_number: 1,
          success: true,
          status_code: 200,
          latency_ms: expect.any(Number),
          error: null,
          response_excerpt: 'ok',
          attempted_at: expect.any(String),
        },
      ]);
      const stored = await deliveryRow(server.deps.db, d.id);
      expect(r.requests.find((q) => q.headers['x-svc-delivery-id'] === d.id)!.rawBody).toBe(stored.body);
    }
    await eventually(async () => (await subscriptionRow(server.deps.db, sub.id)).last_delivery_at !== null);
  });

  test('audience: owner events go to the owner only; challenge.* without owner to every subscriber; nothing to inactive or non-matching subscriptions', async () => {
    const [ra, rb, rbOther, rbDeleted] = await Promise.all([receiver(), receiver(), receiver(), receiver()]);
    const a = await owner();
    const b = await owner();
    const subA = await subscribe(a.user, ra.url, ['challenge.published', 'submission.completed']);
    const subB = await subscribe(b.user, rb.url, ['challenge.published', 'submission.completed']);
    await subscribe(b.user, rbOther.url, ['result.finalized']);
    const deleted = await subscribe(b.user, rbDeleted.url, ['challenge.published', 'submission.completed']);
    expect(
      (await server.request('DELETE', `/api/v1/webhooks/${deleted.id}`, { auth: b.user.jwt })).status,
    ).toBe(200);

    const published = await emit(server.deps.db, {
      type: 'challenge.published',
      payload: PAYLOADS['challenge.published'],
    });
    const completedA = await emit(server.deps.db, {
      type: 'submission.completed',
      payload: PAYLOADS['submission.completed'],
      ownerUserId: a.userId,
    });
    const ownerless = await emit(server.deps.db, {
      type: 'submission.completed',
      payload: PAYLOADS['submission.completed'],
    });

    await waitForOurs(ra, 2);
    await waitForOurs(rb, 1);
    await eventually(async () => {
      const res = await server.deps.db.query(
        'SELECT count(*)::int AS n FROM outbox_events WHERE id = ANY($1::uuid[]) AND dispatched_at IS NULL',
        [[published, completedA, ownerless]],
      );
      return res.rows[0].n === 0;
    });
    // Dispatched (deliveries are created in the same transaction) and every one of ours delivered:
    // nothing more can reach these receivers from these events.
    await deliveriesSettled([published, completedA, ownerless], [subA.id, subB.id, deleted.id], 3);
    const mine = (rows: any[]) =>
      rows
        .filter((d) => [subA.id, subB.id, deleted.id].includes(d.subscription_id))
        .map((d) => d.subscription_id)
        .sort();
    expect(mine(await deliveriesOfEvent(server.deps.db, published))).toEqual([subA.id, subB.id].sort());
    expect(mine(await deliveriesOfEvent(server.deps.db, completedA))).toEqual([subA.id]);
    expect(await deliveriesOfEvent(server.deps.db, ownerless)).toEqual([]);
    expect(
      ours(ra.requests)
        .map((q) => q.headers['x-svc-event'])
        .sort(),
    ).toEqual(['challenge.published', 'submission.completed']);
    expect(ours(rb.requests).map((q) => q.headers['x-svc-event'])).toEqual(['challenge.published']);
    expect(rbOther.requests).toHaveLength(0);
    expect(rbDeleted.requests).toHaveLength(0);
  });

  test('fan-out is exactly once per (event, subscription), however many dispatch passes run', async () => {
    const r = await receiver();
    const { user, userId } = await owner();
    const s1 = await subscribe(user, r.url, ['session.created']);
    const s2 = await subscribe(user, `${r.url}?second`, ['session.created']);
    // Written without NOTIFY, so the worker's dispatcher only finds them on its poll: passes race.
    const eventIds: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await server.deps.db.query(
        `INSERT INTO outbox_events (event_type, payload, owner_user_id) VALUES ('session.created', $1, $2) RETURNING id`,
        [JSON.stringify(PAYLOADS['session.created']), userId],
      );
      eventIds.push(res.rows[0].id);
    }
    await Promise.all([
      dispatchPendingEvents(server.deps),
      dispatchPendingEvents(server.deps),
      dispatchPendingEvents(server.deps),
    ]);
    await dispatchPendingEvents(server.deps);
    await r.waitForRequests(10);
    // A repeated fan-out of already dispatched events creates nothing (unique constraint).
    for (const id of eventIds) {
      const ev = await server.deps.db.query<OutboxEventRow & { dispatched_at: Date | null }>(
        'SELECT * FROM outbox_events WHERE id = $1',
        [id],
      );
      expect(ev.rows[0]!.dispatched_at).not.toBeNull();
      expect((await fanOutEvent(server.deps.db, ev.rows[0]!)).created).toEqual([]);
      const again = await insertDeliveries(server.deps.db, [
        {
          id: `whd_${randomUUID().replace(/-/g, '')}`,
          subscriptionId: s1.id,
          eventId: id,
          eventType: 'session.created',
          body: '{}',
        },
      ]);
      expect(again).toEqual([]);
    }
    await deliveriesSettled(eventIds, [s1.id, s2.id], 10); // nothing more can be sent
    for (const id of eventIds)
      expect((await deliveriesOfEvent(server.deps.db, id)).map((d) => d.subscription_id).sort()).toEqual(
        [s1.id, s2.id].sort(),
      );
    expect(r.requests).toHaveLength(10);
    expect(new Set(r.requests.map((q) => q.headers['x-svc-delivery-id'])).size).toBe(10);
  });

  test('retries on the configured schedule (100, 200, 300 ms): 4 attempts, same delivery id and bytes, then dead_letter', async () => {
    const r = await receiver();
    r.setDefault({ status: 500, body: 'boom' });
    const { user, userId } = await owner();
    const sub = await subscribe(user, r.url, ['submission.completed']);
    const eventId = await emitOwned('submission.completed', userId);
    const requests = await r.waitForRequests(4);
    const [delivery] = await eventually(async () => {
      const rows = await deliveriesOfEvent(server.deps.db, eventId);
      return rows[0]?.status === 'dead_letter' ? rows : undefined;
    });
    await seriesEnded(delivery.id);
    expect(r.requests).toHaveLength(4);
    expect(new Set(requests.map((q) => q.headers['x-svc-delivery-id']))).toEqual(new Set([delivery.id]));
    expect(new Set(requests.map((q) => q.rawBody)).size).toBe(1);
    expect(requests[0]!.rawBody).toBe(delivery.body);
    for (const q of requests) expect(await verifySignatures(q)).toBe(true);

    const attempts = await attemptRows(server.deps.db, delivery.id);
    expect(attempts.map((a) => [a.series, a.attempt_number, a.status_code, a.success, a.error])).toEqual([
      [0, 1, 500, false, 'HTTP 500'],
      [0, 2, 500, false, 'HTTP 500'],
      [0, 3, 500, false, 'HTTP 500'],
      [0, 4, 500, false, 'HTTP 500'],
    ]);
    const delays = server.config.WEBHOOK_RETRY_DELAYS_MS;
    expect(delays).toEqual([100, 200, 300]);
    expectAttemptTimesKeepDelays(requests, attempts, delays);
    expect(delivery).toMatchObject({
      status: 'dead_letter',
      attempt_count: 4,
      last_status_code: 500,
      next_attempt_at: null,
    });
    const listed = await server.request('GET', `/api/v1/webhooks/${sub.id}/deliveries?status=dead_letter`, {
      auth: user.jwt,
    });
    expect(listed.body.data.map((d: any) => [d.id, d.event_type, d.status, d.attempts.length])).toEqual([
      [delivery.id, 'submission.completed', 'dead_letter', 4],
    ]);
    await eventually(async () => (await subscriptionRow(server.deps.db, sub.id)).failure_count === 4);
  });

  test('success after failures: delivered, failure_count back to 0; 3xx is a failure and redirects are not followed', async () => {
    const r = await receiver();
    const elsewhere = await receiver();
    r.enqueue({ status: 500 }, { redirect: elsewhere.url, status: 302 }, { status: 204 });
    const { user, userId } = await owner();
    const sub = await subscribe(user, r.url, ['result.finalized']);
    const eventId = await emitOwned('result.finalized', userId);
    await r.waitForRequests(3);
    const [delivery] = await eventually(async () => {
      const rows = await deliveriesOfEvent(server.deps.db, eventId);
      return rows[0]?.status === 'delivered' ? rows : undefined;
    });
    expect((await attemptRows(server.deps.db, delivery.id)).map((a) => [a.status_code, a.success])).toEqual([
      [500, false],
      [302, false],
      [204, true],
    ]);
    expect(elsewhere.requests).toHaveLength(0);
    expect(delivery.delivered_at).not.toBeNull();
    await eventually(async () => {
      const s = await subscriptionRow(server.deps.db, sub.id);
      return s.failure_count === 0 && s.status === 'active' && s.last_delivery_at !== null;
    });
    // The persisted count was 0 all along; the health workflow's own state is the proof that the
    // success came after the failures. Its signals may still be queued when the delivery is recorded,
    // so wait until all three outcomes were taken in.
    const health = await eventually(async () => {
      const state = await (
        await server.deps.temporal()
      ).workflow
        .getHandle(healthWorkflowId(sub.id))
        .query<SubscriptionHealthState>(HEALTH_STATE_QUERY);
      return state.signalsThisRun >= 3 ? state : undefined;
    });
    expect(health).toMatchObject({ failureCount: 0, generation: 0 });
  });

  test('a receiver that does not answer within the timeout is a failed attempt ("timeout")', async () => {
    const r = await receiver();
    r.enqueue({ hang: true });
    const { user, userId } = await owner();
    await subscribe(user, r.url, ['breakdown.generated']);
    const eventId = await emitOwned('breakdown.generated', userId);
    const [delivery] = await eventually(async () => {
      const rows = await deliveriesOfEvent(server.deps.db, eventId);
      return rows[0]?.status === 'delivered' ? rows : undefined;
    });
    const attempts = await attemptRows(server.deps.db, delivery.id);
    expect(attempts.map((a) => [a.status_code, a.error])).toEqual([
      [null, 'timeout'],
      [200, null],
    ]);
    // Cut off by the timeout (the receiver never answers, so only the timeout ends the attempt).
    expect(attempts[0].latency_ms).toBeGreaterThanOrEqual(server.config.WEBHOOK_TIMEOUT_MS - 5);
  });

  test('410 Gone disables the subscription at once and stops retrying; later events create no deliveries', async () => {
    const r = await receiver();
    r.setDefault({ status: 410 });
    const { user, userId } = await owner();
    const sub = await subscribe(user, r.url, ['submission.queued']);
    const eventId = await emitOwned('submission.queued', userId);
    await r.waitForRequests(1);
    const [delivery] = await eventually(async () => {
      const rows = await deliveriesOfEvent(server.deps.db, eventId);
      return rows[0]?.status === 'dead_letter' ? rows : undefined;
    });
    const s = await subscriptionRow(server.deps.db, sub.id);
    expect(s).toMatchObject({ status: 'disabled', disabled_reason: 'the receiver answered 410 Gone' });
    const got = await server.request('GET', `/api/v1/webhooks/${sub.id}`, { auth: user.jwt });
    expect(got.body.data).toMatchObject({ active: false, status: 'disabled' });
    await seriesEnded(delivery.id); // no retry can come after this
    expect(r.requests).toHaveLength(1);
    expect(await attemptRows(server.deps.db, delivery.id)).toHaveLength(1);
    const later = await emitOwned('submission.queued', userId);
    await eventually(
      async () =>
        (await server.deps.db.query('SELECT dispatched_at FROM outbox_events WHERE id = $1', [later])).rows[0]
          .dispatched_at !== null,
    );
    expect(await deliveriesOfEvent(server.deps.db, later)).toEqual([]);
    // Replaying to a disabled subscription is refused.
    const replay = await server.request(
      'POST',
      `/api/v1/webhooks/${sub.id}/deliveries/${delivery.id}/replay`,
      { auth: user.jwt },
    );
    expect([replay.status, replay.body.error.code]).toEqual([400, 'WEBHOOK_INACTIVE']);
  });

  test('a delivery whose workflow never started is started by the sweeper', async () => {
    const r = await receiver();
    const { user, userId } = await owner();
    await subscribe(user, r.url, ['submission.received']);
    const { deliveryIds } = await manualDeliveries(server.deps.db, {
      type: 'submission.received',
      payload: PAYLOADS['submission.received'],
      ownerUserId: userId,
    });
    // As if the process died between committing the delivery and starting its workflow.
    await server.deps.db.query(
      `UPDATE webhook_deliveries SET workflow_started_at = NULL, updated_at = now() - interval '10 seconds' WHERE id = $1`,
      [deliveryIds[0]],
    );
    const [req] = await r.waitForRequests(1, 15_000);
    expect(req!.headers['x-svc-delivery-id']).toBe(deliveryIds[0]);
    await eventually(async () => (await deliveryRow(server.deps.db, deliveryIds[0]!)).status === 'delivered');
  });
});

describe('subscription health', () => {
  async function runDelivery(userId: string, delays: number[]): Promise<string> {
    const { deliveryIds } = await manualDeliveries(server.deps.db, {
      type: 'submission.failed',
      payload: PAYLOADS['submission.failed'],
      ownerUserId: userId,
    });
    expect(deliveryIds).toHaveLength(1);
    const id = deliveryIds[0]!;
    const client = await server.deps.temporal();
    await startDeliveryWorkflow(
      client,
      server.config,
      { id, series: 0, workflow_id: `webhook-delivery-${id}` },
      { retryDelaysMs: delays },
    );
    const t0 = Date.now();
    await client.workflow.getHandle(`webhook-delivery-${id}`).result();
    if (process.env.WH_DEBUG) console.log('delivery took', Date.now() - t0);
    return id;
  }

  test('disabled at exactly the 10th consecutive failed attempt; a success resets the count', async () => {
    const r = await receiver();
    r.setDefault({ status: 500 });
    const { user, userId } = await owner();
    const sub = await subscribe(user, r.url, ['submission.failed']);
    const fast = [50, 50, 50];
    const countIs = async (n: number) => {
      const t0 = Date.now();
      await eventually(async () => (await subscriptionRow(server.deps.db, sub.id)).failure_count === n);
      if (process.env.WH_DEBUG) console.log('count', n, 'after', Date.now() - t0);
    };

    await runDelivery(userId, fast); // 4 failures
    await countIs(4);
    await runDelivery(userId, fast); // 8
    await countIs(8);
    r.enqueue({ status: 500 }, { status: 200 });
    await runDelivery(userId, fast); // 9, then success → 0
    await countIs(0);
    await runDelivery(userId, fast); // 4
    await runDelivery(userId, fast); // 8
    await countIs(8);
    expect((await subscriptionRow(server.deps.db, sub.id)).status).toBe('active'); // 17 failures in all, 8 consecutive

    // A delivery created while the subscription is still active, attempted only after the disable.
    const {
      deliveryIds: [afterDisable],
    } = await manualDeliveries(server.deps.db, {
      type: 'submission.failed',
      payload: PAYLOADS['submission.failed'],
      ownerUserId: userId,
    });
    // Attempts 9 and 10 (a series of two). The disable is the health workflow's, asynchronous: wait for
    // it, not for a retry delay long enough "to leave it time" (a bet on the machine's speed).
    const last = await runDelivery(userId, [50]);
    const s = await eventually(async () => {
      const row = await subscriptionRow(server.deps.db, sub.id);
      return row.status === 'disabled' ? row : undefined;
    });
    expect(s).toMatchObject({
      status: 'disabled',
      failure_count: 10,
      disabled_reason: '10 consecutive failed delivery attempts',
    });
    expect((await attemptRows(server.deps.db, last)).map((a) => a.attempt_number)).toEqual([1, 2]);
    // The next attempt reads the status first: not made.
    const client = await server.deps.temporal();
    await startDeliveryWorkflow(
      client,
      server.config,
      { id: afterDisable!, series: 0, workflow_id: `webhook-delivery-${afterDisable}` },
      { retryDelaysMs: fast },
    );
    expect(await client.workflow.getHandle(`webhook-delivery-${afterDisable}`).result()).toEqual({
      status: 'dead_letter',
      attempts: 0,
    });
    expect(await attemptRows(server.deps.db, afterDisable!)).toEqual([]);
    expect(await deliveryRow(server.deps.db, afterDisable!)).toMatchObject({
      status: 'dead_letter',
      last_error: 'subscription is disabled; not attempted',
    });
    expect(await subscriptionRow(server.deps.db, sub.id)).toMatchObject({
      status: 'disabled',
      failure_count: 10,
    });

    // Re-enable: count reset, deliveries flow again; a fresh count starts from 0.
    const patched = await server.request('PATCH', `/api/v1/webhooks/${sub.id}`, {
      auth: user.jwt,
      body: { active: true },
    });
    expect(patched.body.data).toMatchObject({ status: 'active', failure_count: 0 });
    r.enqueue({ status: 500 });
    r.setDefault({ status: 200 });
    await runDelivery(userId, fast);
    await countIs(0);
    // The PATCH wrote 0, so the persisted count proves nothing here; the workflow's state does, once it
    // has taken in the new generation's failure and then its success (signals are processed in order;
    // they may still be queued when the delivery workflow ends).
    await eventually(async () => {
      const state = await (
        await server.deps.temporal()
      ).workflow
        .getHandle(healthWorkflowId(sub.id))
        .query<SubscriptionHealthState>(HEALTH_STATE_QUERY);
      return state.generation === 1 && state.failureCount === 0;
    });
  });

  test('the health workflow de-duplicates outcomes, ignores attempts from before a re-enable and continues as new', async () => {
    const client = await server.deps.temporal();
    const subscriptionId = randomUUID(); // no row: persisting is a no-op
    const workflowId = healthWorkflowId(subscriptionId);
    const handle = await client.workflow.start(SUBSCRIPTION_HEALTH_WORKFLOW, {
      taskQueue: server.config.TEMPORAL_TASK_QUEUE,
      workflowId,
      args: [{ subscriptionId, failureCount: 0, generation: 0, maxSignalsPerRun: 3 }],
    });
    const firstRun = handle.firstExecutionRunId;
    const signal = (key: string, generation: number, success: boolean) =>
      client.workflow
        .getHandle(workflowId)
        .signal(ATTEMPT_OUTCOME_SIGNAL, { key, subscriptionId, generation, success, gone: false });
    for (let i = 1; i <= 7; i++) await signal(`k${i}`, 0, false);
    await signal('k7', 0, false); // a retried activity's duplicate
    const state = () =>
      client.workflow.getHandle(workflowId).query<SubscriptionHealthState>(HEALTH_STATE_QUERY);
    await eventually(async () => (await state()).failureCount === 7);
    // Continued as new (after 3 signals), the count carried over.
    await eventually(async () => (await client.workflow.getHandle(workflowId).describe()).runId !== firstRun);
    expect((await state()).failureCount).toBe(7);
    await signal('k8', 1, false); // first outcome after a re-enable: counting restarts
    await eventually(async () => {
      const s = await state();
      return s.failureCount === 1 && s.generation === 1;
    });
    await signal('k9', 0, false); // an attempt made before the re-enable: ignored
    await signal('k10', 1, false);
    await eventually(async () => (await state()).failureCount === 2);
    await client.workflow.getHandle(workflowId).terminate('test done');
  });
});

describe('replay and listing', () => {
  test('replay re-sends the same delivery id and body bytes as a new attempt series (owner, then admin)', async () => {
    const r = await receiver();
    r.setDefault({ status: 500 });
    const { user, userId } = await owner();
    const sub = await subscribe(user, r.url, ['submission.completed']);
    const eventId = await emitOwned('submission.completed', userId);
    await r.waitForRequests(4);
    const [dead] = await eventually(async () => {
      const rows = await deliveriesOfEvent(server.deps.db, eventId);
      return rows[0]?.status === 'dead_letter' ? rows : undefined;
    });
    r.setDefault({ status: 200 });
    const replay = await server.request('POST', `/api/v1/webhooks/${sub.id}/deliveries/${dead.id}/replay`, {
      auth: user.jwt,
    });
    expect(replay.status).toBe(202);
    expect(replay.body.data).toMatchObject({ id: dead.id, event_id: eventId, replay_count: 1 });
    await r.waitForRequests(5);
    const fifth = r.requests[4]!;
    expect(fifth.headers['x-svc-delivery-id']).toBe(dead.id);
    expect(fifth.headers['webhook-id']).toBe(dead.id);
    expect(fifth.rawBody).toBe(r.requests[0]!.rawBody);
    expect(await verifySignatures(fifth)).toBe(true);
    await eventually(async () => (await deliveryRow(server.deps.db, dead.id)).status === 'delivered');
    const replayRun = (await server.deps.temporal()).workflow.getHandle(
      `webhook-delivery-${dead.id}-replay-1`,
    );
    expect(await replayRun.result()).toEqual({ status: 'delivered', attempts: 1 });

    const admin = await newAdmin(server);
    const again = await server.request('POST', `/api/v1/webhooks/${sub.id}/deliveries/${dead.id}/replay`, {
      auth: admin.jwt,
    });
    expect(again.status).toBe(202);
    expect(again.body.data.replay_count).toBe(2);
    await r.waitForRequests(6);
    expect(r.requests[5]!.rawBody).toBe(r.requests[0]!.rawBody);
    await eventually(async () => (await deliveryRow(server.deps.db, dead.id)).status === 'delivered');

    const listed = await server.request('GET', `/api/v1/webhooks/${sub.id}/deliveries`, { auth: user.jwt });
    expect(listed.body.data[0].attempts.map((a: any) => [a.replay, a.attempt_number, a.status_code])).toEqual(
      [
        [0, 1, 500],
        [0, 2, 500],
        [0, 3, 500],
        [0, 4, 500],
        [1, 1, 200],
        [2, 1, 200],
      ],
    );
    const missing = await server.request(
      'POST',
      `/api/v1/webhooks/${sub.id}/deliveries/whd_${'0'.repeat(32)}/replay`,
      { auth: user.jwt },
    );
    expect([missing.status, missing.body.error.code]).toEqual([404, 'NOT_FOUND']);
  });

  test('operators replay all dead letters of a subscription since a time (admin API)', async () => {
    const r = await receiver();
    r.setDefault({ status: 500 });
    const { user, userId } = await owner();
    const sub = await subscribe(user, r.url, ['session.created']);
    const since = new Date(Date.now() - 1000).toISOString();
    await emitOwned('session.created', userId);
    await emitOwned('session.created', userId);
    await r.waitForRequests(8);
    await eventually(async () => {
      const rows = (
        await server.deps.db.query(`SELECT status FROM webhook_deliveries WHERE subscription_id = $1`, [
          sub.id,
        ])
      ).rows;
      return rows.length === 2 && rows.every((x) => x.status === 'dead_letter');
    });
    r.setDefault({ status: 200 });
    const notAdmin = await server.request('POST', `/api/v1/admin/webhooks/${sub.id}/replay-dead-letters`, {
      auth: user.jwt,
      body: { since },
    });
    expect(notAdmin.status).toBe(403);
    const admin = await newAdmin(server);
    const res = await server.request('POST', `/api/v1/admin/webhooks/${sub.id}/replay-dead-letters`, {
      auth: admin.jwt,
      body: { since },
    });
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ replayed: 2, truncated: false });
    await r.waitForRequests(10);
    await eventually(async () => {
      const rows = (
        await server.deps.db.query(`SELECT status FROM webhook_deliveries WHERE subscription_id = $1`, [
          sub.id,
        ])
      ).rows;
      return rows.every((x) => x.status === 'delivered');
    });
    const none = await server.request('POST', `/api/v1/admin/webhooks/${sub.id}/replay-dead-letters`, {
      auth: admin.jwt,
      body: { since },
    });
    expect(none.body.data.replayed).toBe(0);
  });

  test('support CLI: list deliveries, replay one, replay the dead letters since a time', async () => {
    const r = await receiver();
    r.setDefault({ status: 500 });
    const { user, userId } = await owner();
    const sub = await subscribe(user, r.url, ['submission.received']);
    await emitOwned('submission.received', userId);
    await emitOwned('submission.received', userId);
    await r.waitForRequests(8);
    const statuses = async () =>
      (
        await server.deps.db.query(
          `SELECT id, status FROM webhook_deliveries WHERE subscription_id = $1 ORDER BY seq`,
          [sub.id],
        )
      ).rows;
    await eventually(async () => (await statuses()).every((x) => x.status === 'dead_letter'));
    const [first, second] = await statuses();
    r.setDefault({ status: 200 });

    const out: string[] = [];
    const errs: string[] = [];
    const cli = async (...argv: string[]) =>
      runCli(argv, await loadCommands(), {
        env: { ...process.env, API_BASE_URL: server.baseUrl },
        out: (t) => out.push(t),
        err: (t) => errs.push(t),
      });
    expect(await cli('webhooks', 'deliveries', sub.id, '--status', 'dead_letter')).toBe(0);
    expect(out.join('\n')).toContain(first.id);
    expect(await cli('webhooks', 'replay', first.id)).toBe(0);
    // The status is the delivery's when the API answered: a fast receiver may already have it.
    expect(out.at(-1)).toMatch(new RegExp(`^replay 1 of ${first.id} started \\((pending|delivered)\\)$`));
    await eventually(async () => (await deliveryRow(server.deps.db, first.id)).status === 'delivered');
    expect(await cli('webhooks', 'replay-dead-letters', sub.id, '--since', '1h')).toBe(0);
    expect(out).toContain(`  ${second.id}`);
    await eventually(async () => (await deliveryRow(server.deps.db, second.id)).status === 'delivered');
    expect(
      r.requests
        .filter((q) => q.answered && 'status' in q.answered && q.answered.status === 200)
        .map((q) => q.headers['x-svc-delivery-id'])
        .sort(),
    ).toEqual([first.id, second.id].sort());
    expect(await cli('webhooks', 'replay', 'not-a-delivery')).toBe(2);
    expect(await cli('webhooks', 'replay-dead-letters', sub.id, '--since', 'yesterday')).toBe(2);
    expect(errs.join('\n')).toMatch(/--since must be/);
  });

  test('a subscriber re-enables and replays at once what was dead-lettered while it was down (API, CLI); one delivery by its id alone', async () => {
    const r = await receiver();
    const { user, userId } = await owner();
    const sub = await subscribe(user, r.url, ['session.created']);
    const rows = async () =>
      (
        await server.deps.db.query(
          `SELECT id, status FROM webhook_deliveries WHERE subscription_id = $1 ORDER BY seq`,
          [sub.id],
        )
      ).rows;
    // An old dead letter, then a delivered one, then the endpoint goes down for two events.
    r.setDefault({ status: 500 });
    await emitOwned('session.created', userId);
    await eventually(async () => (await rows())[0]?.status === 'dead_letter');
    r.setDefault({ status: 200 });
    await emitOwned('session.created', userId);
    await eventually(async () => (await rows())[1]?.status === 'delivered');
    r.setDefault({ status: 500 });
    await emitOwned('session.created', userId);
    await emitOwned('session.created', userId);
    await eventually(async () => {
      const all = await rows();
      return all.length === 4 && all[2].status === 'dead_letter' && all[3].status === 'dead_letter';
    });
    const [old, , down1, down2] = await rows();
    // The support tooling disabled it meanwhile (as 10 failures would): nothing is replayed to it.
    await server.deps.db.query(
      `UPDATE webhook_subscriptions SET status = 'disabled', disabled_at = now() WHERE id = $1`,
      [sub.id],
    );
    const refused = await server.request('POST', `/api/v1/webhooks/${sub.id}/replay-dead-letters`, {
      auth: user.jwt,
      body: {},
    });
    expect([refused.status, refused.body.error?.code]).toEqual([400, 'WEBHOOK_INACTIVE']);
    r.setDefault({ status: 200 });
    expect(
      (
        await server.request('PATCH', `/api/v1/webhooks/${sub.id}`, {
          auth: user.jwt,
          body: { active: true },
        })
      ).status,
    ).toBe(200);
    // Another user: 404, nothing replayed.
    const other = await owner();
    const foreign = await server.request('POST', `/api/v1/webhooks/${sub.id}/replay-dead-letters`, {
      auth: other.user.jwt,
      body: {},
    });
    expect(foreign.status).toBe(404);

    const res = await server.request('POST', `/api/v1/webhooks/${sub.id}/replay-dead-letters`, {
      auth: user.jwt,
      body: {},
    });
    expect(res.status).toBe(202);
    // The latest run only: the dead letter before the last delivered one is not re-sent.
    expect(res.body.data).toMatchObject({
      replayed: 2,
      delivery_ids: [down1.id, down2.id],
      truncated: false,
    });
    expect(typeof res.body.data.since).toBe('string');
    await eventually(async () => (await rows()).filter((x) => x.status === 'delivered').length === 3);
    expect((await deliveryRow(server.deps.db, old.id)).status).toBe('dead_letter');
    const audit = (
      await server.deps.db.query(
        `SELECT action, detail FROM audit_records WHERE target_id = $1 AND action = 'delivery.replay_bulk'`,
        [sub.id],
      )
    ).rows;
    expect(audit).toHaveLength(1);
    expect(audit[0].detail).toMatchObject({
      selection: 'latest_dead_letter_run',
      delivery_ids: [down1.id, down2.id],
    });

    // One delivery by its id alone: the owner and operators; anyone else 404.
    const mine = await server.request('GET', `/api/v1/webhook-deliveries/${down1.id}`, { auth: user.jwt });
    expect([mine.status, mine.body.data.id, mine.body.data.status]).toEqual([200, down1.id, 'delivered']);
    expect(
      (await server.request('GET', `/api/v1/webhook-deliveries/${down1.id}`, { auth: other.user.jwt }))
        .status,
    ).toBe(404);
    expect(
      (await server.request('GET', `/api/v1/webhook-deliveries/whd_${'0'.repeat(32)}`, { auth: user.jwt }))
        .status,
    ).toBe(404);

    // The CLI: `webhooks delivery <id>` without the subscription id; the old form still works;
    // `replay-dead-letters <id>` without --since replays the latest run (the old one stays).
    const out: string[] = [];
    const errs: string[] = [];
    const cli = async (...argv: string[]) =>
      runCli(argv, await loadCommands(), {
        env: { ...process.env, CCS_BASE_URL: server.baseUrl },
        out: (t) => out.push(t),
        err: (t) => errs.push(t),
      });
    expect(await cli('webhooks', 'delivery', down2.id)).toBe(0);
    expect(out.join('\n')).toContain(`${down2.id}  session.created  delivered`);
    expect(await cli('webhooks', 'delivery', sub.id, down2.id, '--json')).toBe(0);
    expect(JSON.parse(out.at(-1)!).id).toBe(down2.id);
    r.setDefault({ status: 500 });
    await emitOwned('session.created', userId);
    await eventually(async () => (await rows())[4]?.status === 'dead_letter');
    const fifth = (await rows())[4];
    r.setDefault({ status: 200 });
    expect(await cli('webhooks', 'replay-dead-letters', sub.id)).toBe(0);
    expect(out).toContain(`  ${fifth.id}`);
    expect(out.join('\n')).toMatch(/replayed 1 dead letter\(s\) of the latest run/);
    await eventually(async () => (await deliveryRow(server.deps.db, fifth.id)).status === 'delivered');
    expect((await deliveryRow(server.deps.db, old.id)).status).toBe('dead_letter');
  });

  test('the listing shows the last 20 deliveries, newest first, filtered by ?status=', async () => {
    const r = await receiver();
    const { user, userId } = await owner();
    const sub = await subscribe(user, r.url, ['breakdown.generated']);
    const eventIds: string[] = [];
    for (let i = 0; i < 22; i++)
      eventIds.push(
        await emit(server.deps.db, {
          type: 'breakdown.generated',
          payload: PAYLOADS['breakdown.generated'],
          ownerUserId: userId,
        }),
      );
    await r.waitForRequests(22);
    await eventually(async () => {
      const n = (
        await server.deps.db.query(
          `SELECT count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = $1 AND status = 'delivered'`,
          [sub.id],
        )
      ).rows[0].n;
      return n === 22;
    });
    const listed = await server.request('GET', `/api/v1/webhooks/${sub.id}/deliveries`, { auth: user.jwt });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(20);
    expect(listed.body.data.map((d: any) => d.event_id)).toEqual(eventIds.slice(2).reverse());
    expect(listed.body.data[0]).toEqual({
      id: expect.stringMatching(/^whd_/),
      subscription_id: sub.id,
      event_id: eventIds[21],
      event_type: 'breakdown.generated',
      status: 'delivered',
      replay_count: 0,
      attempt_count: 1,
      last_status_code: 200,
      last_error: null,
      next_attempt_at: null,
      delivered_at: expect.any(String),
      created_at: expect.any(String),
      updated_at: expect.any(String),
      attempts: [expect.objectContaining({ attempt_number: 1, success: true, status_code: 200 })],
    });
    expect(
      (
        await server.request('GET', `/api/v1/webhooks/${sub.id}/deliveries?status=delivered`, {
          auth: user.jwt,
        })
      ).body.data,
    ).toHaveLength(20);
    expect(
      (
        await server.request('GET', `/api/v1/webhooks/${sub.id}/deliveries?status=retrying`, {
          auth: user.jwt,
        })
      ).body.data,
    ).toEqual([]);
  });
});

describe('SSRF at attempt time (after DNS resolution)', () => {
  test('a name that resolves to loopback, private or metadata addresses is refused before connecting', async () => {
    const r = await receiver();
    const { user, userId } = await owner();
    const port = new URL(r.url).port;
    const sub = await subscribe(user, `https://hooks.example.com:${port}/hook`, ['submission.completed']);
    for (const [address, allowPrivate] of [
      ['127.0.0.1', false],
      ['10.0.0.8', true],
      ['169.254.169.254', true],
    ] as const) {
      const activities = createDeliverySteps(
        {
          config: { ...server.config, WEBHOOK_ALLOW_PRIVATE: allowPrivate },
          db: server.deps.db,
          logger: server.deps.logger,
          temporal: server.deps.temporal,
        },
        { lookup: async () => [{ address, family: 4 }] },
      );
      const { deliveryIds } = await manualDeliveries(server.deps.db, {
        type: 'submission.completed',
        payload: PAYLOADS['submission.completed'],
        ownerUserId: userId,
      });
      const firstAttempt = {
        deliveryId: deliveryIds[0]!,
        series: 0,
        attemptNumber: 1,
        totalAttempts: 4,
        timeoutMs: 2000,
        nextDelayMs: 100,
      };
      const result = await activities.deliverWebhookAttempt(firstAttempt);
      expect(result).toMatchObject({
        attempted: true,
        ok: false,
        statusCode: null,
        final: false,
        deliveryStatus: 'retrying',
      });
      const [attempt] = await attemptRows(server.deps.db, deliveryIds[0]!);
      expect(attempt.error).toMatch(
        new RegExp(
          `^refused target: host hooks\\.example\\.com resolves to ${address.replace(/\./g, '\\.')}`,
        ),
      );
      // Retried activity: the recorded attempt is returned, nothing is sent again.
      const again = await activities.deliverWebhookAttempt(firstAttempt);
      expect(again).toMatchObject({ attempted: true, ok: false });
      expect(await attemptRows(server.deps.db, deliveryIds[0]!)).toHaveLength(1);
    }
    expect(r.requests).toHaveLength(0);
    expect(sub.status).toBe('active');
  });
});
