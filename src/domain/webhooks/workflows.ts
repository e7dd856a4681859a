import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Config } from '../../config';
import type { Queryable } from '../../db/pool';
import { markWorkflowsStarted, type WebhookDeliveryRow } from '../../db/queries/webhook-deliveries';
import {
  ATTEMPT_OUTCOME_SIGNAL,
  healthWorkflowId,
  SUBSCRIPTION_HEALTH_WORKFLOW,
  WEBHOOK_DELIVERY_WORKFLOW,
  type AttemptOutcomeSignal,
  type SubscriptionHealthInput,
  type WebhookDeliveryInput,
} from './workflow-contract';

export interface StartDeliveryOptions {
  /** Overrides the configured schedule (tests, the real-schedule check). */
  retryDelaysMs?: number[];
  timeoutMs?: number;
  /** Ask the server to hand the first workflow task straight to a worker sharing this client's connection. */
  eager?: boolean;
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

/** Starts many (bounded concurrency) and marks the started ones; failures are left to the sweeper. */
export async function startDeliveryWorkflows(
  client: Client,
  db: Queryable,
  config: Config,
  deliveries: Pick<WebhookDeliveryRow, 'id' | 'series' | 'workflow_id'>[],
  onError: (err: unknown, deliveryId: string) => void,
  options: StartDeliveryOptions = {},
): Promise<number> {
  const started: string[] = [];
  const CONCURRENCY = 32;
  for (let i = 0; i < deliveries.length; i += CONCURRENCY) {
    await Promise.all(
      deliveries.slice(i, i + CONCURRENCY).map(async (d) => {
        try {
          await startDeliveryWorkflow(client, config, d, options);
          started.push(d.workflow_id);
        } catch (err) {
          onError(err, d.id);
        }
      }),
    );
  }
  await markWorkflowsStarted(db, started);
  return started.length;
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
