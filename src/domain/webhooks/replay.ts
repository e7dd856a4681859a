import type { PoolClient } from 'pg';
import { notFound, validationError } from '../../errors';
import { withTransaction } from '../../db/pool';
import type { ServiceDeps } from '../../service-deps';
import {
  beginReplay,
  findDelivery,
  findDeliveries,
  listDeadLetters,
  listLatestDeadLetterRun,
  markWorkflowsStarted,
  type WebhookDeliveryRow,
} from '../../db/queries/webhook-deliveries';
import {
  findSubscription,
  findSubscriptionForShare,
  type WebhookSubscriptionRow,
} from '../../db/queries/webhook-subscriptions';
import { recordAudit, type Actor } from '../audit/trail';
import { assertActive } from './subscriptions';
import { startDeliveryWorkflow, type StartDeliveryOptions } from './workflow-start';

/** Bulk replays stop here; run again with a later `since` for more. */
export const MAX_BULK_REPLAY = 500;

/** Opens the new series of each delivery (same transaction as the caller's audit record). */
async function beginReplays(tx: PoolClient, sub: WebhookSubscriptionRow, deliveryIds: string[]) {
  assertActive((await findSubscriptionForShare(tx, sub.id)) ?? sub);
  const replayed: WebhookDeliveryRow[] = [];
  for (const id of deliveryIds) replayed.push((await beginReplay(tx, id))!);
  return replayed;
}

/** Starts the replays' workflows after the commit; one Temporal cannot reach stays pending for the sweeper. */
async function startReplays(deps: ServiceDeps, rows: WebhookDeliveryRow[], options: StartDeliveryOptions) {
  for (const row of rows) {
    try {
      await startDeliveryWorkflow(await deps.temporal(), deps.config, row, options);
      await markWorkflowsStarted(deps.db, [row.workflow_id]);
    } catch (err) {
      deps.logger.warn(
        { err, deliveryId: row.id },
        'replay workflow not started yet; the sweeper will start it',
      );
    }
  }
}

/**
 * Re-sends a delivery: the SAME delivery id and body bytes, a new attempt series (series n, workflow
 * `webhook-delivery-<id>-replay-<n>`). The subscription must be active (400 WEBHOOK_INACTIVE). A series
 * still running is superseded: its remaining attempts are skipped. If Temporal is unreachable the
 * replay stays pending and the dispatcher's sweeper starts it. Audited as delivery.replay in the same
 * transaction as the new series.
 */
export async function replayDelivery(
  deps: ServiceDeps,
  actor: Actor,
  sub: WebhookSubscriptionRow,
  deliveryId: string,
  options: StartDeliveryOptions = {},
): Promise<WebhookDeliveryRow> {
  const [replayed] = await withTransaction(deps.db, async (tx) => {
    const delivery = await findDelivery(tx, deliveryId);
    if (!delivery || delivery.subscription_id !== sub.id) throw notFound('delivery');
    const rows = await beginReplays(tx, sub, [deliveryId]);
    await recordAudit(
      tx,
      actor,
      'delivery.replay',
      { type: 'delivery', id: deliveryId },
      {
        subscription_id: sub.id,
        event_type: delivery.event_type,
        previous_status: delivery.status,
        replay: rows[0].series,
      },
    );
    return rows;
  });
  await startReplays(deps, [replayed], options);
  return (await findDelivery(deps.db, deliveryId)) ?? replayed;
}

export interface BulkReplayOutcome {
  replayed: WebhookDeliveryRow[];
  truncated: boolean;
}

/**
 * Replays every dead letter of a subscription created at or after `since` (support tooling, and a
 * subscriber after re-enabling: `since` null → the latest run of dead letters, those after the last
 * delivery delivered before the newest dead letter: what failed while the endpoint was down), at most
 * MAX_BULK_REPLAY per call: all new series and one delivery.replay_bulk record in one transaction.
 */
export async function replayDeadLetters(
  deps: ServiceDeps,
  actor: Actor,
  subscriptionId: string,
  since: Date | null,
): Promise<BulkReplayOutcome & { since: Date | null }> {
  const sub = await findSubscription(deps.db, subscriptionId);
  if (!sub) throw notFound('webhook subscription');
  assertActive(sub);
  const outcome = await withTransaction(deps.db, async (tx) => {
    const dead = since
      ? await listDeadLetters(tx, subscriptionId, since, MAX_BULK_REPLAY + 1)
      : await listLatestDeadLetterRun(tx, subscriptionId, MAX_BULK_REPLAY + 1);
    const ids = dead.slice(0, MAX_BULK_REPLAY).map((d) => d.id);
    const replayed = await beginReplays(tx, sub, ids);
    const truncated = dead.length > MAX_BULK_REPLAY;
    await recordAudit(
      tx,
      actor,
      'delivery.replay_bulk',
      { type: 'webhook_subscription', id: sub.id },
      {
        selection: since ? 'dead_letters_since' : 'latest_dead_letter_run',
        since: (since ?? dead[0]?.created_at ?? null)?.toISOString() ?? null,
        delivery_ids: ids,
        count: ids.length,
        truncated,
      },
    );
    return { replayed, truncated, since: since ?? dead[0]?.created_at ?? null };
  });
  await startReplays(deps, outcome.replayed, {});
  return outcome;
}

/**
 * Replays the deliveries an operator selected (any subscriptions): every new series and one
 * delivery.replay_bulk record per subscription touched, in one transaction. An unknown id is a 404
 * and an inactive subscription a 400, and then nothing is replayed.
 */
export async function replaySelectedDeliveries(
  deps: ServiceDeps,
  actor: Actor,
  deliveryIds: string[],
): Promise<BulkReplayOutcome> {
  const unique = [...new Set(deliveryIds)];
  if (unique.length > MAX_BULK_REPLAY)
    throw validationError(`at most ${MAX_BULK_REPLAY} deliveries per call`);
  const replayed = await withTransaction(deps.db, async (tx) => {
    const found = await findDeliveries(tx, unique);
    const missing = unique.find((id) => !found.some((d) => d.id === id));
    if (missing) throw notFound(`delivery ${missing}`);
    const bySubscription = new Map<string, string[]>();
    for (const d of found)
      bySubscription.set(d.subscription_id, [...(bySubscription.get(d.subscription_id) ?? []), d.id]);
    const rows: WebhookDeliveryRow[] = [];
    for (const [subscriptionId, ids] of bySubscription) {
      const sub = await findSubscription(tx, subscriptionId);
      if (!sub) throw notFound('webhook subscription');
      rows.push(...(await beginReplays(tx, sub, ids)));
      await recordAudit(
        tx,
        actor,
        'delivery.replay_bulk',
        { type: 'webhook_subscription', id: subscriptionId },
        {
          selection: 'selected',
          delivery_ids: ids,
          count: ids.length,
          truncated: false,
        },
      );
    }
    return rows;
  });
  await startReplays(deps, replayed, {});
  return { replayed, truncated: false };
}
