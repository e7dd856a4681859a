/**
 * The webhook event catalog of the OpenAPI document (3.1 `webhooks`): for each of the event types,
 * what the service POSTs to a subscriber's URL: the body's schema, the headers (the spec's X-Svc-*
 * and the Standard Webhooks ones), a realistic example built by the real body builder and signed by
 * the real signer, and how the answer is read (delivered, retried, disabled).
 */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  buildDeliveryHeaders,
  deliveredBodySchema,
  EVENT_CATALOG,
  sampleEventBody,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_EVENT_VERSION,
  WEBHOOK_USER_AGENT,
  type WebhookEventType,
} from '../webhook-transport';

/** How attempts are made and read (the spec's schedule, the defaults in src/config.ts). */
const RETRY_NOTE =
  'Attempts: the first at once, then after 1 s, 5 s and 30 s (4 in all), each with a 10 s timeout. ' +
  'After 4 failed attempts the delivery is a dead letter (support can replay it: same delivery id, same body bytes). ' +
  'Every failed attempt counts against the subscription; 10 in a row disable it. ' +
  'Answer quickly with a 2xx and do the work afterwards; use the delivery id to ignore duplicates.';

export const WEBHOOK_EVENTS_TAG = 'webhook events';

/** The secret the examples are signed with, so a reader can check the example signatures. */
const SAMPLE_SECRET = 'whsec_7d1f4b9c2e8a6035';

export const COMPLETED_VS_COMPLETE =
  'submission.completed carries `submission_status: "completed"`, the text the interface spec shows for this event; ' +
  'the REST API names the same state `complete` (GET /api/v1/submissions/{id} and the listings). ' +
  'Compare against "completed" in webhook bodies and "complete" in API answers.';

function headersOf(type: WebhookEventType, rawBody: string, deliveryId: string, timestampSeconds: number) {
  const real = buildDeliveryHeaders({
    secret: SAMPLE_SECRET,
    deliveryId,
    eventType: type,
    rawBody,
    timestampSeconds,
  });
  const header = (name: keyof typeof real, description: string) =>
    z.string().openapi({ description, example: real[name] });
  return z.object({
    'Content-Type': header('Content-Type', 'always application/json'),
    'User-Agent': header('User-Agent', `${WEBHOOK_USER_AGENT}`),
    'X-Svc-Event': header('X-Svc-Event', 'the event type (the body says it too)'),
    'X-Svc-Event-Version': header(
      'X-Svc-Event-Version',
      `the body schema version, currently ${WEBHOOK_EVENT_VERSION}`,
    ),
    'X-Svc-Delivery-ID': header(
      'X-Svc-Delivery-ID',
      'the delivery id: the same on every retry and on a replay, so a receiver can drop duplicates',
    ),
    'X-Svc-Signature': header(
      'X-Svc-Signature',
      '`sha256=` + hex HMAC-SHA256 of the exact raw body, keyed with the subscription secret (UTF-8 bytes)',
    ),
    'webhook-id': header('webhook-id', 'Standard Webhooks: the delivery id (same as X-Svc-Delivery-ID)'),
    'webhook-timestamp': header(
      'webhook-timestamp',
      "Standard Webhooks: Unix seconds of this attempt (fresh on each retry, so a late retry is inside the receiver's tolerance)",
    ),
    'webhook-signature': header(
      'webhook-signature',
      'Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed with the UTF-8 bytes of the subscription secret',
    ),
  });
}

export function registerWebhookCatalog(registry: OpenAPIRegistry): void {
  // How a receiver authenticates the service: the signature headers, keyed with the subscription secret.
  registry.registerComponent('securitySchemes', 'webhookSignature', {
    type: 'apiKey',
    in: 'header',
    name: 'webhook-signature',
    description:
      'Receivers verify every delivery with the subscription secret: Standard Webhooks `webhook-signature` (with webhook-id and webhook-timestamp) or X-Svc-Signature over the raw body',
  });
  for (const type of WEBHOOK_EVENT_TYPES) {
    const body = sampleEventBody(type);
    const rawBody = JSON.stringify(body);
    const timestampSeconds = Math.floor(Date.parse(body.timestamp) / 1000);
    const schema = registry.register(
      `${type
        .split(/[._]/)
        .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
        .join('')}Event`,
      deliveredBodySchema(type),
    );
    registry.registerWebhook({
      method: 'post',
      path: type,
      operationId: `webhook_${type.replace('.', '_')}`,
      summary: EVENT_CATALOG[type].summary,
      description: [
        `Sent to every active subscription listening to \`${type}\`, as a POST with the body below (the body shown is signed with the secret \`${SAMPLE_SECRET}\`: check it with either signature).`,
        type === 'submission.completed' ? `**Note:** ${COMPLETED_VS_COMPLETE}` : '',
        RETRY_NOTE,
      ]
        .filter(Boolean)
        .join('\n\n'),
      tags: [WEBHOOK_EVENTS_TAG],
      security: [{ webhookSignature: [] }],
      request: {
        headers: headersOf(type, rawBody, body.id, timestampSeconds),
        body: { required: true, content: { 'application/json': { schema, example: body } } },
      },
      responses: {
        200: {
          description: 'Any 2xx answer within the timeout: delivered (the body of the answer is ignored)',
        },
        410: {
          description:
            'Gone: the subscription is disabled immediately, without retries; re-enable it with PATCH',
        },
        default: {
          description:
            'Anything else, a redirect (not followed) or no answer within the timeout: the attempt failed and is retried',
        },
      },
    });
  }
}
