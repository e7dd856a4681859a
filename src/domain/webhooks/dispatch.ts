import { Client as TemporalClient, type ConnectionLike } from '@temporalio/client';
import { withTransaction } from '../../db/pool';
import type { ServiceDeps } from '../../service-deps';
import {
  assignFirstAttemptBatches,
  findUnstartedDeliveries,
  type WebhookDeliveryRow,
} from '../../db/queries/webhook-deliveries';
import { batchWorkflowId } from './contract';
import { claimUndispatchedEvents, markEventsDispatched } from '../../db/queries/outbox-events';
import {
  webhookDeliveriesCreated,
  webhookDispatchLag,
  webhookEventsDispatched,
  webhookInvalidEvents,
} from '../../lib/metrics';
import { fanOutEvents } from './fan-out';
import { startDeliveryWorkflows } from './workflow-start';

/**
 * Dispatch: drains `outbox_events` into webhook deliveries and starts their delivery workflows
 * (alone, or a first-attempt batch). The loop that runs these passes is src/runtime/outbox-dispatcher.ts.
 *
 * It runs inside every worker process (started by src/worker.ts), not as a Temporal workflow:
 * - LISTEN needs one long-lived database connection, which neither workflow code (no I/O) nor an
 *   activity (bounded, retried, heartbeated) is made for;
 * - the latency budget (event → receiver p50 ≤ 150 ms) leaves no room for a polling workflow's
 *   timer plus an extra activity round trip per batch.
 * Correctness does not depend on it being the only one: events are claimed with
 * `FOR UPDATE SKIP LOCKED`, deliveries are unique per (event, subscription), and workflow ids are
 * deterministic with REJECT_DUPLICATE. Durability comes from the outbox (an event stays undispatched
 * until its deliveries are committed) and from the sweeper (a delivery whose workflow did not start
 * is started later). NOTIFY wakes it at once; a 1 s poll covers missed notifications.
 */

export interface DispatcherDeps extends ServiceDeps {
  /**
   * The worker's own connection (src/worker.ts). Workflows started through it use eager start: the
   * server hands the first workflow task straight to this worker (no task-queue round trip).
   */
  workerConnection?: ConnectionLike;
}

const eagerClients = new WeakMap<ConnectionLike, TemporalClient>();
/** The client to start delivery workflows with, and whether eager start applies. */
async function startingClient(deps: DispatcherDeps): Promise<{ client: TemporalClient; eager: boolean }> {
  if (!deps.workerConnection) return { client: await deps.temporal(), eager: false };
  let client = eagerClients.get(deps.workerConnection);
  if (!client) {
    client = new TemporalClient({
      connection: deps.workerConnection,
      namespace: deps.config.TEMPORAL_NAMESPACE,
    });
    eagerClients.set(deps.workerConnection, client);
  }
  return { client, eager: true };
}

export const DISPATCH_BATCH_SIZE = 100;

/**
 * Groups the deliveries of one pass into first-attempt batches of at most `batchMax`, in creation
 * order; a lone delivery (the quiet case) stays out of any batch and gets its own workflow at once.
 */
export function planFirstAttemptBatches(
  deliveries: Pick<WebhookDeliveryRow, 'id'>[],
  batchMax: number,
): { batchWorkflowId: string; deliveryIds: string[] }[] {
  if (batchMax < 2 || deliveries.length < 2) return [];
  const groups: { batchWorkflowId: string; deliveryIds: string[] }[] = [];
  for (let i = 0; i < deliveries.length; i += batchMax) {
    const ids = deliveries.slice(i, i + batchMax).map((d) => d.id);
    // A remainder of one joins no batch: its own workflow costs the same and shows it by name.
    if (ids.length < 2) continue;
    groups.push({ batchWorkflowId: batchWorkflowId(ids[0]!), deliveryIds: ids });
  }
  return groups;
}

export interface DispatchPassResult {
  events: number;
  deliveries: WebhookDeliveryRow[];
  started: number;
}

/**
 * One pass: claim up to `batchSize` undispatched events, create their deliveries and mark them
 * dispatched in one transaction, then start the workflows.
 */
export async function dispatchPendingEvents(
  deps: DispatcherDeps,
  batchSize = DISPATCH_BATCH_SIZE,
): Promise<DispatchPassResult> {
  const { events, deliveries } = await withTransaction(deps.db, async (tx) => {
    const claimed = await claimUndispatchedEvents(tx, batchSize);
    const { created, invalid } = await fanOutEvents(tx, claimed);
    const batches = planFirstAttemptBatches(created, deps.config.WEBHOOK_FIRST_ATTEMPT_BATCH_MAX);
    await assignFirstAttemptBatches(tx, batches);
    const batchOf = new Map(
      batches.flatMap((b) => b.deliveryIds.map((id) => [id, b.batchWorkflowId] as const)),
    );
    for (const d of created) d.batch_workflow_id = batchOf.get(d.id) ?? null;
    for (const bad of invalid) {
      webhookInvalidEvents.inc();
      deps.logger.error({ eventId: bad.eventId, problem: bad.problem }, 'outbox event not deliverable');
    }
    await markEventsDispatched(
      tx,
      claimed.map((e) => e.id),
    );
    return { events: claimed, deliveries: created };
  });
  const now = Date.now();
  for (const e of events) webhookDispatchLag.observe(Math.max(0, now - e.created_at.getTime()) / 1000);
  webhookEventsDispatched.inc(events.length);
  webhookDeliveriesCreated.inc(deliveries.length);
  let started = 0;
  if (deliveries.length > 0) {
    const { client, eager } = await startingClient(deps);
    started = await startDeliveryWorkflows(
      client,
      deps.db,
      deps.config,
      deliveries,
      (err, deliveryId) =>
        deps.logger.warn({ err, deliveryId }, 'delivery workflow not started; the sweeper will retry'),
      { eager },
    );
  }
  return { events: events.length, deliveries, started };
}

/** Starts workflows of deliveries that were committed but never started (crash, Temporal down). */
export async function sweepUnstartedDeliveries(
  deps: DispatcherDeps,
  olderThanMs = 5000,
  limit = 200,
): Promise<number> {
  const stuck = await findUnstartedDeliveries(deps.db, olderThanMs, limit);
  if (stuck.length === 0) return 0;
  const client = await deps.temporal();
  return startDeliveryWorkflows(client, deps.db, deps.config, stuck, (err, deliveryId) =>
    deps.logger.warn({ err, deliveryId }, 'sweeper could not start a delivery workflow'),
  );
}
