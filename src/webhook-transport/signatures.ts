/**
 * Signing of outgoing webhook deliveries.
 *
 * Every delivery carries two independent signatures over the same raw body bytes:
 *
 * 1. `X-Svc-Signature: sha256=<hex>` (the spec's header): HMAC-SHA256 of the exact raw body, keyed with
 *    the subscription secret as UTF-8 bytes. This is byte-for-byte the GitHub scheme, so GitHub's
 *    verifiers (e.g. `@octokit/webhooks-methods` `verify(secret, body, signature)`) accept it. It does not
 *    cover a timestamp, so it gives no replay protection on its own; receivers dedupe by delivery id.
 *
 * 2. Standard Webhooks (https://www.standardwebhooks.com/) headers `webhook-id`, `webhook-timestamp`,
 *    `webhook-signature: v1,<base64>` where the signature is HMAC-SHA256 over `<id>.<timestamp>.<body>`.
 *    These add replay protection (receivers reject timestamps older than their tolerance, 5 min by default).
 *
 *    DECISION (key derivation): Standard Webhooks secrets are `whsec_<base64 of the key bytes>`, while our
 *    subscription secrets are arbitrary caller-chosen strings (min 8 chars). We do NOT derive a new key:
 *    the HMAC key is the UTF-8 bytes of the subscription secret, exactly as for X-Svc-Signature. A receiver
 *    therefore builds its Standard Webhooks secret as
 *        `'whsec_' + Buffer.from(secret, 'utf8').toString('base64')`   (see `toStandardWebhooksSecret`)
 *    and verifies with `new Webhook(thatSecret).verify(body, headers)`; the `whsec_` prefix is optional
 *    for the reference libraries. (`new Webhook(secret, { format: 'raw' })` also works for ASCII secrets,
 *    but that reference code maps characters to Latin-1 bytes, so it fails for non-ASCII secrets.)
 *
 *    `webhook-id` is the delivery id (the same on every retry and on a replay, so receivers can dedupe),
 *    `webhook-timestamp` is the time of this attempt (fresh on each retry, so a late retry still falls
 *    inside the receiver's tolerance window).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** Event schema version sent in X-Svc-Event-Version (spec section 6 and 9). */
export const WEBHOOK_EVENT_VERSION = '1';

export const WEBHOOK_USER_AGENT = 'challenge-service-webhooks/1';

/** Delivery ids and event types go into headers and into the Standard Webhooks signed content. */
const HEADER_TOKEN = /^[A-Za-z0-9_.:-]{1,128}$/;
/** No '.' in delivery ids: the Standard Webhooks signed content uses '.' as its separator. */
const DELIVERY_ID = /^[A-Za-z0-9_:-]{1,128}$/;

/** `sha256=<hex>` HMAC-SHA256 of the exact raw body (the X-Svc-Signature header value). */
export function signSvcSignature(secret: string, rawBody: string): string {
  return `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(rawBody, 'utf8').digest('hex')}`;
}

/** Constant-time check of an X-Svc-Signature header (our own tests, support tooling, receiver examples). */
export function verifySvcSignature(secret: string, rawBody: string, signatureHeader: string): boolean {
  return timingSafeEqualStrings(signSvcSignature(secret, rawBody), signatureHeader);
}

/** The secret a receiver passes to a Standard Webhooks library to verify our deliveries. */
export function toStandardWebhooksSecret(subscriptionSecret: string): string {
  return `whsec_${Buffer.from(subscriptionSecret, 'utf8').toString('base64')}`;
}

export interface StandardWebhookSigningInput {
  secret: string;
  msgId: string;
  timestampSeconds: number;
  rawBody: string;
}

export interface StandardWebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

export function standardWebhookHeaders(input: StandardWebhookSigningInput): StandardWebhookHeaders {
  assertDeliveryId(input.msgId);
  assertTimestampSeconds(input.timestampSeconds);
  const signedContent = `${input.msgId}.${input.timestampSeconds}.${input.rawBody}`;
  const signature = createHmac('sha256', Buffer.from(input.secret, 'utf8'))
    .update(signedContent, 'utf8')
    .digest('base64');
  return {
    'webhook-id': input.msgId,
    'webhook-timestamp': String(input.timestampSeconds),
    'webhook-signature': `v1,${signature}`,
  };
}

export interface DeliveryHeadersInput {
  secret: string;
  deliveryId: string;
  eventType: string;
  rawBody: string;
  /** Unix seconds of this attempt; defaults to now. */
  timestampSeconds?: number;
}

/**
 * All headers for one delivery attempt. Build them per attempt (the Standard Webhooks timestamp is the
 * attempt's time) over the SAME stored raw body each time, so signatures and dedupe stay consistent.
 * Content-Length is set by the sender.
 */
export function buildDeliveryHeaders(input: DeliveryHeadersInput): Record<string, string> {
  if (!HEADER_TOKEN.test(input.eventType)) {
    throw new TypeError(`event type is not a safe header value: ${JSON.stringify(input.eventType)}`);
  }
  const timestampSeconds = input.timestampSeconds ?? Math.floor(Date.now() / 1000);
  return {
    'Content-Type': 'application/json',
    'User-Agent': WEBHOOK_USER_AGENT,
    'X-Svc-Signature': signSvcSignature(input.secret, input.rawBody),
    'X-Svc-Delivery-ID': input.deliveryId,
    'X-Svc-Event': input.eventType,
    'X-Svc-Event-Version': WEBHOOK_EVENT_VERSION,
    ...standardWebhookHeaders({
      secret: input.secret,
      msgId: input.deliveryId,
      timestampSeconds,
      rawBody: input.rawBody,
    }),
  };
}

/**
 * Constant-time string equality for secrets, signatures and token hashes. Both sides are hashed first so
 * the comparison never short-circuits on (or leaks) a length difference.
 */
export function timingSafeEqualStrings(a: string, b: string): boolean {
  const digestA = createHash('sha256').update(a, 'utf8').digest();
  const digestB = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(digestA, digestB);
}

/** Delivery ids are opaque, header-safe and dot-free (e.g. `whd_<32 hex>` from `newDeliveryId`). */
export function isValidDeliveryId(id: string): boolean {
  return DELIVERY_ID.test(id);
}

function assertDeliveryId(id: string): void {
  if (!isValidDeliveryId(id)) {
    throw new TypeError(`delivery id must match ${DELIVERY_ID.source}: ${JSON.stringify(id)}`);
  }
}

function assertTimestampSeconds(seconds: number): void {
  if (!Number.isSafeInteger(seconds) || seconds < 0) {
    throw new TypeError(`timestampSeconds must be a non-negative integer, got ${seconds}`);
  }
}
