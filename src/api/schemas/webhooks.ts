import { z } from 'zod';
import {
  DELIVERY_STATUSES,
  type WebhookAttemptRow,
  type WebhookDeliveryRow,
} from '../../db/queries/webhook-deliveries';
import type { WebhookSubscriptionRow } from '../../db/queries/webhook-subscriptions';
import { MAX_WEBHOOK_URL_LENGTH } from '../../webhook-transport/ssrf';
import { queryInt, safeText } from './common';
import { iso } from '../../lib/time';

/**
 * Request bodies. `url` is checked for SSRF in the handler (it depends on WEBHOOK_ALLOW_PRIVATE) and
 * event types in the handler too, so an unknown type gets INVALID_EVENT rather than VALIDATION_ERROR.
 */
export const createWebhookBody = z
  .object({
    url: z.string().max(MAX_WEBHOOK_URL_LENGTH).url(),
    events: z.array(z.string().max(100)).min(1).max(50),
    secret: safeText(256, 8),
  })
  .strict();

export const patchWebhookBody = z
  .object({
    active: z.literal(true, {
      errorMap: () => ({ message: 'only {"active": true} (re-enable) is supported' }),
    }),
  })
  .strict();

export const subscriptionStatusSchema = z.enum(['active', 'inactive', 'disabled']);
/** DELETE /api/v1/webhooks/{id}?purge=true: removed outright with its deliveries. */
export const deleteWebhookQuery = z
  .object({
    purge: z
      .enum(['true', 'false', '1', '0'])
      .optional()
      .transform((v) => v === 'true' || v === '1'),
  })
  .strict();

export const listWebhooksQuery = z.object({ status: subscriptionStatusSchema.optional() }).strict();

export const deliveryStatusSchema = z.enum(DELIVERY_STATUSES);
export const listDeliveriesQuery = z.object({ status: deliveryStatusSchema.optional() }).strict();

export const webhookDeliveryParams = z.object({
  id: z.string().uuid(),
  deliveryId: z.string().regex(/^whd_[0-9a-f]{32}$/, 'not a delivery id'),
});

/** Support's listing across subscriptions (operators) and a subscriber's own (the /me page). */
export const searchDeliveriesQuery = z
  .object({
    status: deliveryStatusSchema.optional(),
    subscription_id: z.string().uuid().optional(),
    since: z.string().datetime({ offset: true }).optional(),
    limit: queryInt(1, 100, 20),
    cursor: z.string().max(400).optional(),
  })
  .strict();

/** Replay the deliveries an operator selected (any subscriptions; one audit record per subscription). */
export const replaySelectedBody = z
  .object({
    delivery_ids: z
      .array(z.string().regex(/^whd_[0-9a-f]{32}$/, 'not a delivery id'))
      .min(1)
      .max(500),
  })
  .strict();

export const bulkReplaySchema = z.object({
  replayed: z.number().int(),
  delivery_ids: z.array(z.string()),
  truncated: z.boolean(),
});

export const replayDeadLettersBody = z.object({ since: z.string().datetime({ offset: true }) }).strict();

/** A subscriber's "replay what was dead-lettered while it was down": `since` optional. */
export const ownerReplayDeadLettersBody = z
  .object({ since: z.string().datetime({ offset: true }).optional() })
  .strict();

export const ownerBulkReplaySchema = bulkReplaySchema.extend({
  /** Where the replayed run starts (the `since` given, else the oldest replayed dead letter); null when none. */
  since: z.string().nullable(),
});

export const webhookSubscriptionSchema = z.object({
  id: z.string().uuid(),
  url: z.string(),
  events: z.array(z.string()),
  secret_prefix: z
    .string()
    .describe(
      'leading part of the signing secret: its first characters (at most 4, at most a quarter of it), nothing added',
    ),
  active: z.boolean(),
  status: subscriptionStatusSchema,
  failure_count: z.number().int(),
  last_delivery_at: z.string().nullable(),
  created_at: z.string(),
  disabled_at: z.string().nullable(),
  disabled_reason: z.string().nullable(),
});

export function toWebhookSubscription(row: WebhookSubscriptionRow) {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    secret_prefix: row.secret_prefix,
    active: row.status === 'active',
    status: row.status,
    failure_count: row.failure_count,
    last_delivery_at: iso(row.last_delivery_at),
    created_at: row.created_at.toISOString(),
    disabled_at: iso(row.disabled_at),
    disabled_reason: row.disabled_reason,
  };
}

export const webhookAttemptSchema = z.object({
  /** 0 for the original series, n for the n-th replay. */
  replay: z.number().int(),
  attempt_number: z.number().int(),
  success: z.boolean(),
  status_code: z.number().int().nullable(),
  latency_ms: z.number().int(),
  error: z.string().nullable(),
  /** The receiver's answer, first 1000 characters (null: no answer, e.g. a timeout). */
  response_excerpt: z.string().nullable(),
  attempted_at: z.string(),
});

export const webhookDeliverySchema = z.object({
  id: z.string(),
  subscription_id: z.string().uuid(),
  event_id: z.string().uuid().nullable(),
  event_type: z.string(),
  status: deliveryStatusSchema,
  replay_count: z.number().int(),
  attempt_count: z.number().int(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  next_attempt_at: z.string().nullable(),
  delivered_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  attempts: z.array(webhookAttemptSchema),
});

export function toWebhookDelivery(row: WebhookDeliveryRow, attempts: WebhookAttemptRow[]) {
  return {
    id: row.id,
    subscription_id: row.subscription_id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    replay_count: row.series,
    attempt_count: row.attempt_count,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    next_attempt_at: iso(row.next_attempt_at),
    delivered_at: iso(row.delivered_at),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    attempts: attempts
      .filter((a) => a.delivery_id === row.id)
      .map((a) => ({
        replay: a.series,
        attempt_number: a.attempt_number,
        success: a.success,
        status_code: a.status_code,
        latency_ms: a.latency_ms,
        error: a.error,
        response_excerpt: a.response_excerpt,
        attempted_at: a.attempted_at.toISOString(),
      })),
  };
}

/** A delivery in support's listing: the delivery with its attempts and where it was sent. */
export const webhookDeliveryListItemSchema = webhookDeliverySchema.extend({ url: z.string() });

export function toWebhookDeliveryListItem(
  row: WebhookDeliveryRow & { url: string },
  attempts: WebhookAttemptRow[],
) {
  return { ...toWebhookDelivery(row, attempts), url: row.url };
}

export const testEventResultSchema = z.object({
  delivered: z.boolean(),
  status_code: z.number().int(),
  latency_ms: z.number().int(),
  error: z.string().nullable(),
  delivery_id: z.string(),
});
