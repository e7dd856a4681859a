import { notFound } from '../../errors';
import { withTransaction } from '../../db/pool';
import type { ServiceDeps } from '../../service-deps';
import {
  beginReplay,
  findDelivery,
  listDeadLetters,
  markWorkflowsStarted,
  type WebhookDeliveryRow,
} from '../../db/queries/webhook-deliveries';
import {
  findSubscription,
  findSubscriptionForShare,
  type WebhookSubscriptionRow,
} from '../../db/queries/webhook-subscriptions';
import { assertActive } from './subscriptions';
import { startDeliveryWorkflow, type StartDeliveryOptions } from './workflow-start';

/** Bulk replays stop here; run again with a later `since` for more. */
export const MAX_BULK_REPLAY = 500;

/**
 * Re-sends a delivery: the SAME delivery id and body bytes, a new attempt series (series n, workflow
 * `webhook-delivery-<id>-replay-<n>`). The subscription must be active (400 WEBHOOK_INACTIVE). A series
 * still running is superseded: its remaining attempts are skipped. If Temporal is unreachable the
 * replay stays pending and the dispatcher's sweeper starts it.
 */
export async function replayDelivery(
  deps: ServiceDeps,
  sub: WebhookSubscriptionRow,
  deliveryId: string,
  options: StartDeliveryOptions = {},
): Promise<WebhookDeliveryRow> {
  const replayed = await withTransaction(deps.db, async (tx) => {
    assertActive((await findSubscriptionForShare(tx, sub.id)) ?? sub);
    const delivery = await findDelivery(tx, deliveryId);
    if (!delivery || delivery.subscription_id !== sub.id) throw notFound('delivery');
    return (await beginReplay(tx, deliveryId))!;
  });
  try {
    await startDeliveryWorkflow(await deps.temporal(), deps.config, replayed, options);
    await markWorkflowsStarted(deps.db, [replayed.workflow_id]);
  } catch (err) {
    deps.logger.warn({ err, deliveryId }, 'replay workflow not started yet; the sweeper will start it');
  }
  return (await findDelivery(deps.db, deliveryId)) ?? replayed;
}

/** Replays every dead letter of a subscription created at or after `since` (support tooling). */
export async function replayDeadLetters(
  deps: ServiceDeps,
  subscriptionId: string,
  since: Date,
): Promise<{ replayed: WebhookDeliveryRow[]; truncated: boolean }> {
  const sub = await findSubscription(deps.db, subscriptionId);
  if (!sub) throw notFound('webhook subscription');
  assertActive(sub);
  const dead = await listDeadLetters(deps.db, subscriptionId, since, MAX_BULK_REPLAY + 1);
  const replayed: WebhookDeliveryRow[] = [];
  for (const d of dead.slice(0, MAX_BULK_REPLAY)) replayed.push(await replayDelivery(deps, sub, d.id));
  return { replayed, truncated: dead.length > MAX_BULK_REPLAY };
}
