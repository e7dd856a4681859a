import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Config } from '../../config';
import type { Queryable } from '../../db/pool';
import {
  markBatchesStarted,
  markWorkflowsStarted,
  type WebhookDeliveryRow,
} from '../../db/queries/webhook-deliveries';
import {
  ATTEMPT_OUTCOME_SIGNAL,
  healthWorkflowId,
  SUBSCRIPTION_HEALTH_WORKFLOW,
  WEBHOOK_DELIVERY_WORKFLOW,
  WEBHOOK_FIRST_ATTEMPTS_WORKFLOW,
  type AttemptOutcomeSignal,
  type SubscriptionHealthInput,
  type WebhookDeliveryInput,
  type WebhookFirstAttemptsInput,
} from './contract';

export interface StartDeliveryOptions {
  /** Overrides the configured schedule (tests, the real-schedule check). */
  retryDelaysMs?: number[];
  timeoutMs?: number;
  /** Ask the server to hand the first workflow task straight to a worker sharing this client's connection. */
  eager?: boolean;
  /** The series continues after an attempt a first-attempt batch made. */
  startAfterAttempt?: WebhookDeliveryInput['startAfterAttempt'];
}

/**
 * Starts the delivery workflow of the current attempt series. The workflow id is the delivery's
 * (`webhook-delivery-<id>` or `...-replay-<n>`) with REJECT_DUPLICATE, so a repeated start (the
 * sweeper, a second dispatcher) can never run the series twice. Returns whether it runs now.
 */
export async function startDeliveryWorkflow(
  client: Client,
  config: Config,
  delivery: Pick<WebhookDeliveryRow, 'id' | 'series' | 'workflow_id'>,
  options: StartDeliveryOptions = {},
): Promise<void> {
  const input: WebhookDeliveryInput = {
    deliveryId: delivery.id,
    series: delivery.series,
    retryDelaysMs: options.retryDelaysMs ?? config.WEBHOOK_RETRY_DELAYS_MS,
    timeoutMs: options.timeoutMs ?? config.WEBHOOK_TIMEOUT_MS,
    ...(options.startAfterAttempt ? { startAfterAttempt: options.startAfterAttempt } : {}),
  };
  try {
    await client.workflow.start(WEBHOOK_DELIVERY_WORKFLOW, {
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      workflowId: delivery.workflow_id,
      args: [input],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      requestEagerStart: options.eager,
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/** Starts a batch of first attempts (its members are the deliveries stored with its workflow id). */
export async function startFirstAttemptsWorkflow(
  client: Client,
  config: Config,
  batchWorkflowId: string,
  memberCount: number,
  options: StartDeliveryOptions = {},
): Promise<void> {
  const input: WebhookFirstAttemptsInput = {
    retryDelaysMs: options.retryDelaysMs ?? config.WEBHOOK_RETRY_DELAYS_MS,
    timeoutMs: options.timeoutMs ?? config.WEBHOOK_TIMEOUT_MS,
  };
  try {
    await client.workflow.start(WEBHOOK_FIRST_ATTEMPTS_WORKFLOW, {
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      workflowId: batchWorkflowId,
      args: [input],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      requestEagerStart: options.eager,
      staticSummary: `First attempts of ${memberCount} webhook deliveries`,
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

type StartableDelivery = Pick<WebhookDeliveryRow, 'id' | 'series' | 'workflow_id'> & {
  batch_workflow_id?: string | null;
};

/**
 * Starts the workflows of committed deliveries (bounded concurrency) and marks the started ones;
 * failures are left to the sweeper. A delivery of a first-attempt batch (series 0 with a batch id)
 * starts its batch, once per batch; any other starts its own series. Returns how many deliveries now
 * have a running workflow.
 */
export async function startDeliveryWorkflows(
  client: Client,
  db: Queryable,
  config: Config,
  deliveries: StartableDelivery[],
  onError: (err: unknown, deliveryId: string) => void,
  options: StartDeliveryOptions = {},
): Promise<number> {
  const batches = new Map<string, StartableDelivery[]>();
  const jobs: (() => Promise<void>)[] = [];
  const startedSingles: string[] = [];
  const startedBatches: string[] = [];
  let started = 0;
  for (const d of deliveries) {
    if (d.series === 0 && d.batch_workflow_id) {
      const members = batches.get(d.batch_workflow_id);
      if (members) members.push(d);
      else batches.set(d.batch_workflow_id, [d]);
      continue;
    }
    jobs.push(async () => {
      try {
        await startDeliveryWorkflow(client, config, d, options);
        startedSingles.push(d.workflow_id);
        started++;
      } catch (err) {
        onError(err, d.id);
      }
    });
  }
  for (const [batchWorkflowId, members] of batches) {
    jobs.push(async () => {
      try {
        await startFirstAttemptsWorkflow(client, config, batchWorkflowId, members.length, options);
        startedBatches.push(batchWorkflowId);
        started += members.length;
      } catch (err) {
        for (const m of members) onError(err, m.id);
      }
    });
  }
  const CONCURRENCY = 32;
  for (let i = 0; i < jobs.length; i += CONCURRENCY)
    await Promise.all(jobs.slice(i, i + CONCURRENCY).map((job) => job()));
  await markWorkflowsStarted(db, startedSingles);
  await markBatchesStarted(db, startedBatches);
  return started;
}

/** Hands one attempt outcome to the subscription's health workflow, starting it when needed. */
export async function signalSubscriptionHealth(
  client: Client,
  config: Config,
  outcome: AttemptOutcomeSignal,
  start: SubscriptionHealthInput,
): Promise<void> {
  await client.workflow.signalWithStart(SUBSCRIPTION_HEALTH_WORKFLOW, {
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowId: healthWorkflowId(outcome.subscriptionId),
    args: [start],
    signal: ATTEMPT_OUTCOME_SIGNAL,
    signalArgs: [outcome],
  });
}
