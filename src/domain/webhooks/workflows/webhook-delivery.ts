import {
  ActivityFailure,
  ApplicationFailure,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { DeliverySteps } from '../delivery';
import {
  IN_ACTIVITY_WAIT_MAX_MS,
  LOCAL_ATTEMPT_FAILURE_PATCH,
  TIMER_LEAD_MS,
  type DeliverAttemptResult,
  type WebhookDeliveryInput,
  type WebhookDeliveryResult,
  type WebhookFirstAttemptsInput,
  type WebhookFirstAttemptsResult,
} from '../contract';
import { ATTEMPT_TIMEOUT_MS, DEFAULT_RETRY_DELAYS_MS, delayBeforeAttempt, totalAttempts } from '../contract';

/** Infrastructure retries only (database, Temporal): receiver failures are outcomes, never thrown. */
const infraRetry = {
  initialInterval: '200ms',
  backoffCoefficient: 2,
  maximumInterval: '30s',
  maximumAttempts: 12,
} as const;

const bookkeeping = proxyActivities<DeliverySteps>({
  startToCloseTimeout: '30s',
  retry: infraRetry,
});

/** The batch's last resort retries until it succeeds: giving up would leave members unattempted. */
const lastResort = proxyActivities<DeliverySteps>({
  startToCloseTimeout: '60s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '60s' },
});

/**
 * An attempt's local activity that failed through its retries: a local activity's failure reaches
 * the workflow as its own ApplicationFailure (test/service/workflows/webhooks.test.ts), a regular one's as
 * an ActivityFailure. Runs recorded before LOCAL_ATTEMPT_FAILURE_PATCH failed at that point.
 */
function failedForGood(err: unknown): boolean {
  if (err instanceof ActivityFailure) return true;
  return err instanceof ApplicationFailure && patched(LOCAL_ATTEMPT_FAILURE_PATCH);
}

/**
 * One attempt series of one webhook delivery (workflow id `webhook-delivery-<deliveryId>`, or
 * `...-replay-<n>` for the n-th replay). Attempt 1 at once, then after each configured delay
 * (spec: 1 s, 5 s, 30 s) counted between the moments the attempts' requests went out; each attempt is one activity with the per-attempt timeout, recorded in
 * webhook_attempts. Attempts run as local activities (see below). 2xx → delivered; 410 → subscription disabled, dead_letter; the last failure →
 * dead_letter; a subscription that is no longer active stops the series (dead_letter, not attempted).
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const delays = input.retryDelaysMs ?? [...DEFAULT_RETRY_DELAYS_MS];
  const timeoutMs = input.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const total = totalAttempts(delays);
  // A local activity: the attempt runs inside the workflow task on this worker, so a delivery costs
  // Temporal one workflow task instead of two plus an activity task (the throughput and latency
  // budget); it is still an activity (retried on infrastructure errors, result recorded in history).
  const attempts = proxyLocalActivities<DeliverySteps>({
    // The HTTP deadline plus room for the database writes around it and the scheduled wait.
    startToCloseTimeout: timeoutMs + 15_000,
    retry: infraRetry,
  });

  // A series handed over by a first-attempt batch continues after the attempt the batch made.
  let previousStartMs: number | null = input.startAfterAttempt?.attemptedAtMs ?? null;
  for (
    let attemptNumber = (input.startAfterAttempt?.attemptNumber ?? 0) + 1;
    attemptNumber <= total;
    attemptNumber++
  ) {
    const delay = delayBeforeAttempt(attemptNumber, delays) ?? 0;
    // Delays run between attempts' sending (attempts at 0, +1 s, +5 s, +30 s), so the time spent in an
    // attempt and its bookkeeping (recording, signalling, workflow tasks) does not push the schedule
    // back; an attempt that lasted longer than the delay (a timeout) is followed at once.
    // Temporal timers fire late by tens of ms (and sub-second timers only after ~1 s), so a timer
    // ends TIMER_LEAD_MS early and the activity waits the exact rest; short waits (≤ 1 s) happen
    // in the activity alone. Date.now() is workflow time (deterministic).
    const notBeforeMs = previousStartMs === null ? null : previousStartMs + delay;
    if (notBeforeMs !== null) {
      const remaining = notBeforeMs - Date.now();
      if (remaining > IN_ACTIVITY_WAIT_MAX_MS) await sleep(remaining - TIMER_LEAD_MS);
    }
    let result: DeliverAttemptResult;
    try {
      result = await attempts.deliverWebhookAttempt({
        deliveryId: input.deliveryId,
        series: input.series,
        attemptNumber,
        totalAttempts: total,
        timeoutMs,
        nextDelayMs: delays[attemptNumber - 1] ?? null,
        notBeforeMs,
      });
    } catch (err) {
      if (!failedForGood(err)) throw err;
      // Infrastructure stayed down through every retry: end the series visibly (replayable).
      log.error('webhook attempt failed for infrastructure reasons', {
        deliveryId: input.deliveryId,
        attemptNumber,
      });
      await bookkeeping.abandonWebhookDelivery({
        deliveryId: input.deliveryId,
        series: input.series,
        reason: 'delivery abandoned after repeated infrastructure errors',
      });
      return { status: 'dead_letter', attempts: attemptNumber - 1 };
    }
    previousStartMs = result.attemptedAtMs;
    if (result.unreportedOutcome && result.healthStart) {
      await bookkeeping.reportAttemptOutcome({
        outcome: result.unreportedOutcome,
        start: result.healthStart,
      });
    }
    if (result.final) {
      const status =
        result.deliveryStatus === 'delivered'
          ? 'delivered'
          : result.deliveryStatus === 'superseded'
            ? 'superseded'
            : 'dead_letter';
      return { status, attempts: result.attempted ? attemptNumber : attemptNumber - 1 };
    }
  }
  return { status: 'dead_letter', attempts: total };
}

/**
 * The first attempts of several deliveries created by one dispatch pass (workflow
 * `webhook-delivery-batch-<first delivery id>`; the members are the deliveries stored with that id).
 * One local activity makes every member's first attempt at once; a member that failed with retries
 * left is handed over by that activity to its own `webhook-delivery-<id>` workflow, which runs the
 * timed retries and the dead letter. Under load this replaces one workflow per delivery with one per
 * batch for deliveries that succeed at once (the throughput budget: docs/decisions/webhooks.md).
 */
export async function webhookFirstAttemptsWorkflow(
  input: WebhookFirstAttemptsInput,
): Promise<WebhookFirstAttemptsResult> {
  const timeoutMs = input.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const activityInput = {
    batchWorkflowId: workflowInfo().workflowId,
    retryDelaysMs: input.retryDelaysMs ?? [...DEFAULT_RETRY_DELAYS_MS],
    timeoutMs,
  };
  const attempts = proxyLocalActivities<DeliverySteps>({
    // Every member's attempt runs in parallel: one HTTP deadline plus the bookkeeping around it.
    startToCloseTimeout: timeoutMs + 30_000,
    retry: infraRetry,
  });
  try {
    return await attempts.deliverFirstAttempts(activityInput);
  } catch (err) {
    if (!failedForGood(err)) throw err;
    // Infrastructure stayed down through every retry: each unfinished member gets its own workflow.
    log.error('first-attempt batch failed for infrastructure reasons; handing members over', {
      batchWorkflowId: activityInput.batchWorkflowId,
    });
    const handedOver = await lastResort.handOverBatchMembers(activityInput);
    log.info('batch members handed over to their own delivery workflows', { handedOver });
    return { deliveries: [] };
  }
}
