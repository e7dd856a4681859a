/** Reading deliveries: one with its attempts, and support's listing across subscriptions. */
import type { Pool } from 'pg';
import { notFound, validationError } from '../../errors';
import type { Principal } from '../../auth/principal';
import {
  findDelivery,
  listAttempts,
  searchDeliveries,
  type DeliverySearchRow,
  type DeliveryStatus,
  type WebhookAttemptRow,
  type WebhookDeliveryRow,
} from '../../db/queries/webhook-deliveries';
import { decodeSeqCursor, encodeSeqCursor, keysetPage } from '../../lib/keyset-cursor';
import type { Pagination } from '../../lib/pagination';
import { requireSubscriptionForDeliveries } from './subscriptions';

/**
 * One delivery of a subscription with every attempt of every series. The subscription's owner, or
 * an operator; anyone else (and a delivery of another subscription) is 404, as for subscriptions.
 */
export async function getDelivery(
  db: Pool,
  principal: Principal,
  subscriptionId: string,
  deliveryId: string,
): Promise<{ delivery: WebhookDeliveryRow; attempts: WebhookAttemptRow[] }> {
  await requireSubscriptionForDeliveries(db, principal, subscriptionId);
  const delivery = await findDelivery(db, deliveryId);
  if (!delivery || delivery.subscription_id !== subscriptionId) throw notFound('delivery');
  return { delivery, attempts: await listAttempts(db, [deliveryId]) };
}

/**
 * One delivery by its id alone (the CLI's `webhooks delivery <id>`): the owner of its subscription
 * or an operator; anyone else, or an unknown id, gets the same 404.
 */
export async function getDeliveryById(
  db: Pool,
  principal: Principal,
  deliveryId: string,
): Promise<{ delivery: WebhookDeliveryRow; attempts: WebhookAttemptRow[] }> {
  const delivery = await findDelivery(db, deliveryId);
  if (!delivery) throw notFound('delivery');
  try {
    await requireSubscriptionForDeliveries(db, principal, delivery.subscription_id);
  } catch {
    throw notFound('delivery');
  }
  return { delivery, attempts: await listAttempts(db, [deliveryId]) };
}

export interface DeliverySearchQuery {
  status?: DeliveryStatus;
  subscription_id?: string;
  /** The console's filter (the API route does not take it). */
  event_type?: string;
  since?: string;
  limit: number;
  cursor?: string;
}

const invalidCursor = () =>
  validationError('query.cursor: invalid cursor (use next_cursor from the previous page)');

/**
 * Deliveries newest first (creation order), keyset-paged, each with its attempts. `ownerUserId`
 * keeps it to one owner's subscriptions (a subscriber's own view); without it, every subscription
 * (operators).
 */
export async function searchDeliveriesPage(
  db: Pool,
  query: DeliverySearchQuery,
  ownerUserId?: string,
): Promise<{ rows: DeliverySearchRow[]; attempts: WebhookAttemptRow[]; pagination: Pagination }> {
  const page = await searchDeliveries(db, {
    status: query.status,
    subscriptionId: query.subscription_id,
    eventType: query.event_type,
    ownerUserId,
    since: query.since ? new Date(query.since) : undefined,
    beforeSeq: query.cursor ? decodeSeqCursor(query.cursor, invalidCursor) : null,
    limit: query.limit + 1,
  });
  const { rows, pagination } = keysetPage(page, query.limit, (last) => encodeSeqCursor(last.seq));
  return {
    rows,
    attempts: await listAttempts(
      db,
      rows.map((r) => r.id),
    ),
    pagination,
  };
}
