import type { Config } from '../../config';
import type { WebhookSubscriptionRow } from '../../db/queries/webhook-subscriptions';
import { buildTestEventBody, newDeliveryId, WEBHOOK_TEST_EVENT_TYPE } from '../../webhook-transport/events';
import { decryptSecret } from '../../webhook-transport/secret-box';
import { buildDeliveryHeaders } from '../../webhook-transport/signatures';
import { sendWebhookAttempt } from '../../webhook-transport/attempt';
import type { HostLookup } from '../../webhook-transport/ssrf';
import { assertActive, secretBoxKey } from './subscriptions';

export interface TestEventResult {
  delivered: boolean;
  /** HTTP status of the answer; 0 when no answer arrived (timeout, refused, connection error). */
  status_code: number;
  latency_ms: number;
  /** Why it failed (extension), null when delivered. */
  error: string | null;
  /** Delivery id sent in X-Svc-Delivery-ID / webhook-id (extension). */
  delivery_id: string;
}

/**
 * POST /webhooks/{id}/test: one synchronous signed attempt of a `webhook.test` event
 * (`{id, event_type: "webhook.test", timestamp, data: {subscription_id, message}}`) with the normal
 * headers. Not stored as a delivery, not retried, no effect on failure_count or status.
 */
export async function sendTestEvent(
  config: Config,
  sub: WebhookSubscriptionRow,
  lookup?: HostLookup,
): Promise<TestEventResult> {
  assertActive(sub);
  const id = newDeliveryId();
  const now = new Date();
  const rawBody = JSON.stringify(buildTestEventBody({ id, timestamp: now, subscriptionId: sub.id }));
  const headers = buildDeliveryHeaders({
    secret: decryptSecret(sub.secret_encrypted, secretBoxKey(config)),
    deliveryId: id,
    eventType: WEBHOOK_TEST_EVENT_TYPE,
    rawBody,
    timestampSeconds: Math.floor(now.getTime() / 1000),
  });
  const outcome = await sendWebhookAttempt({
    url: sub.url,
    headers,
    rawBody,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
    internalOrigins: config.WEBHOOK_INTERNAL_ORIGINS,
    lookup,
  });
  return {
    delivered: outcome.ok,
    status_code: outcome.statusCode ?? 0,
    latency_ms: outcome.latencyMs,
    error: outcome.error,
    delivery_id: id,
  };
}
