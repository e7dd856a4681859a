import type { PoolClient } from 'pg';
import type { Queryable } from '../../db/pool';
import type { OutboxEventRow } from '../../db/queries/outbox-events';
import { findMatchingSubscriptionsForEvents } from '../../db/queries/webhook-subscriptions';
import {
  insertDeliveries,
  type NewDelivery,
  type WebhookDeliveryRow,
} from '../../db/queries/webhook-deliveries';
import { buildEventBody, InvalidEventPayloadError, newDeliveryId } from '../../webhook-transport/events';

/**
 * Who receives an event:
 * - an event with an owner goes to that user's active subscriptions of its type;
 * - a challenge.* event without an owner is public news: every active subscription of its type;
 * - any other event without an owner goes nowhere (an emitter bug must not broadcast a
 *   participant's activity to everyone).
 */
export function audienceOf(
  event: Pick<OutboxEventRow, 'event_type' | 'owner_user_id'>,
): { ownerUserId: string | null; broadcast: boolean } | null {
  if (event.owner_user_id) return { ownerUserId: event.owner_user_id, broadcast: false };
  if (event.event_type.startsWith('challenge.')) return { ownerUserId: null, broadcast: true };
  return null;
}

export interface FanOutResult {
  created: WebhookDeliveryRow[];
  /** Events whose payload could not be turned into a delivery body (emitter bugs; logged by the caller). */
  invalid: { eventId: string; problem: string }[];
}

/**
 * One delivery per (event, matching active subscription), each with its own id and its exact body,
 * built once here and stored. Exactly once per (event, subscription): the unique constraint makes a
 * repeated fan-out of the same event (a second dispatcher, a retried pass) create nothing.
 * Three statements whatever the number of events: match, (build in memory), insert.
 */
export async function fanOutEvents(
  db: Queryable | PoolClient,
  events: OutboxEventRow[],
): Promise<FanOutResult> {
  const audiences = events.map(audienceOf);
  const targeted = events
    .map((e, i) => ({ event: e, audience: audiences[i]! }))
    .filter((x) => x.audience !== null);
  const matches = await findMatchingSubscriptionsForEvents(
    db,
    targeted.map(({ event, audience }) => ({
      eventType: event.event_type,
      ownerUserId: audience!.ownerUserId,
      broadcast: audience!.broadcast,
    })),
  );
  const deliveries: NewDelivery[] = [];
  const invalid: FanOutResult['invalid'] = [];
  const invalidEvents = new Set<string>();
  for (const match of matches) {
    const event = targeted[match.event_index]!.event;
    if (invalidEvents.has(event.id)) continue;
    const id = newDeliveryId();
    try {
      const body = buildEventBody({
        id,
        eventType: event.event_type,
        timestamp: event.created_at,
        payload: event.payload,
      });
      deliveries.push({
        id,
        subscriptionId: match.subscription_id,
        eventId: event.id,
        eventType: event.event_type,
        body: JSON.stringify(body),
      });
    } catch (err) {
      if (!(err instanceof InvalidEventPayloadError)) throw err;
      invalidEvents.add(event.id);
      invalid.push({ eventId: event.id, problem: err.message });
    }
  }
  const usable = deliveries.filter((d) => !invalidEvents.has(d.eventId));
  return { created: await insertDeliveries(db, usable), invalid };
}

export function fanOutEvent(db: Queryable | PoolClient, event: OutboxEventRow): Promise<FanOutResult> {
  return fanOutEvents(db, [event]);
}
