import type { ServiceDeps } from '../../service-deps';
import {
  abandonDelivery,
  findBatchMembers,
  findDeliveryTarget,
  recordAttempt,
  type DeliveryStatus,
} from '../../db/queries/webhook-deliveries';
import { deliveryWorkflowId } from './contract';
import {
  disableSubscription,
  findSubscriptionState,
  setFailureCount,
} from '../../db/queries/webhook-subscriptions';
import { signalSubscriptionHealth, startDeliveryWorkflow } from './workflow-start';
import {
  IN_ACTIVITY_WAIT_MAX_MS,
  TIMER_LEAD_MS,
  type AttemptOutcomeSignal,
  type DeliverAttemptInput,
  type DeliverAttemptResult,
  type FirstAttemptsActivityInput,
  type SubscriptionHealthInput,
  type WebhookFirstAttemptsResult,
} from './contract';
import { totalAttempts } from './contract';
import { webhookAttemptLatency, webhookAttemptsTotal } from '../../lib/metrics';
import { storableTextOrNull } from '../../lib/storable-text';
import { attemptOutcomeKey, attemptVerdict, mayChangeHealth, storedExcerpt } from './rules';
import { buildDeliveryHeaders } from '../../webhook-transport/signatures';
import { decryptSecret, deriveSecretBoxKey } from '../../webhook-transport/secret-box';
import { sendWebhookAttempt } from '../../webhook-transport/attempt';
import type { HostLookup } from '../../webhook-transport/ssrf';

/** What is left to tell the health workflow about one attempt (nothing, once it has been told). */
type HealthReport = Pick<DeliverAttemptResult, 'unreportedOutcome' | 'healthStart'>;

/** An attempt made and recorded; `report` settles once its outcome reached the health workflow (or could not). */
interface MadeAttempt {
  result: Omit<DeliverAttemptResult, 'unreportedOutcome' | 'healthStart'>;
  report: Promise<HealthReport>;
}

/**
 * A batch makes a failed member's second attempt itself when the wait before it is this short (the
 * spec's 1 s): a hand-over (a workflow start and its first task) can take longer than the wait
 * under load. The batch's local activity must still fit both attempts within its timeout.
 */
const IN_BATCH_RETRY_MAX_MS = IN_ACTIVITY_WAIT_MAX_MS;
/** An attempt's timeout plus the wait before the batch's second attempt stays under this (the batch activity allows one timeout + 30 s). */
const IN_BATCH_SECOND_ATTEMPT_BUDGET_MS = 20_000;

export interface DeliveryOptions {
  /** DNS resolution for the attempt-time SSRF check (tests inject one). */
  lookup?: HostLookup;
}

/**
 * The delivery steps the webhook workflows run (as activities). `deliverWebhookAttempt` never
 * throws for receiver problems (they are outcomes); it throws only for infrastructure errors
 * (database), which Temporal retries. It is idempotent: a retried step whose attempt is already
 * recorded returns the recorded outcome instead of sending again.
 */
export function createDeliverySteps(deps: ServiceDeps, options: DeliveryOptions = {}) {
  const secretKey = deriveSecretBoxKey(deps.config.WEBHOOK_SECRET_KEY);
  const log = deps.logger.child({ component: 'webhooks' });

  function resultFor(
    input: DeliverAttemptInput,
    ok: boolean,
    gone: boolean,
  ): Pick<DeliverAttemptResult, 'final' | 'deliveryStatus'> {
    const { final, deliveryStatus } = attemptVerdict(input, ok, gone);
    return { final, deliveryStatus };
  }

  async function deliverWebhookAttempt(input: DeliverAttemptInput): Promise<DeliverAttemptResult> {
    const made = await makeAttempt(input, null);
    return { ...made.result, ...(await made.report) };
  }

  /**
   * One attempt, its health outcome reported apart (`report`): the attempt is recorded when this
   * resolves, its signal to the health workflow may still be under way. `after` is the previous
   * attempt's report, awaited before this one signals, so a subscription's outcomes reach its
   * health workflow in the order the attempts were made.
   */
  async function makeAttempt(
    input: DeliverAttemptInput,
    after: Promise<HealthReport> | null,
  ): Promise<MadeAttempt> {
    const noReport: Promise<HealthReport> = Promise.resolve({ unreportedOutcome: null, healthStart: null });
    const skipped = (deliveryStatus: DeliverAttemptResult['deliveryStatus']): MadeAttempt => ({
      result: {
        attempted: false,
        ok: false,
        statusCode: null,
        gone: false,
        final: true,
        deliveryStatus,
        attemptedAtMs: null,
      },
      report: noReport,
    });

    const target = await findDeliveryTarget(deps.db, input.deliveryId, input.series, input.attemptNumber);
    if (!target) {
      log.warn({ deliveryId: input.deliveryId }, 'delivery not found; nothing to attempt');
      return skipped('dead_letter');
    }
    if (target.series !== input.series) return skipped('superseded'); // a replay took over

    const recorded = target.recorded;
    if (recorded) {
      // Retried after the attempt was made and recorded: do not send twice. The health signal may
      // not have gone out; the workflow reports it again (the health workflow counts a key once).
      const gone = recorded.status_code === 410;
      return {
        result: {
          attempted: true,
          ok: recorded.success,
          statusCode: recorded.status_code,
          gone,
          ...resultFor(input, recorded.success, gone),
          attemptedAtMs: recorded.attempted_at.getTime(),
        },
        report: Promise.resolve({
          unreportedOutcome: {
            key: attemptOutcomeKey(input),
            subscriptionId: target.subscription_id,
            generation: target.enable_generation,
            success: recorded.success,
            gone,
          },
          healthStart: {
            subscriptionId: target.subscription_id,
            failureCount: target.failure_count,
            generation: target.enable_generation,
          },
        }),
      };
    }

    // The schedule's exact moment (see the workflow): at most a timer lead or a short delay. The
    // delivery is read before waiting (so the request leaves on time), the status again after it
    // (a disable that landed meanwhile, e.g. by the previous attempt's failure, still counts).
    const waitMs = input.notBeforeMs
      ? Math.min(input.notBeforeMs - Date.now(), IN_ACTIVITY_WAIT_MAX_MS + TIMER_LEAD_MS + 1000)
      : 0;
    let status = target.subscription_status;
    let generation = target.enable_generation;
    if (waitMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      // A timer counts from the event loop's cached clock and can fire a millisecond or two before
      // the wall clock reaches the moment: never send (or record) a retry before its delay.
      const notBeforeMs = input.notBeforeMs ?? 0;
      while (Date.now() < notBeforeMs) {
        await new Promise((resolve) => setTimeout(resolve, Math.max(1, notBeforeMs - Date.now())));
      }
      const now = await findSubscriptionState(deps.db, target.subscription_id);
      status = now?.status ?? 'inactive';
      generation = now?.enable_generation ?? generation;
    }
    if (status !== 'active') {
      await abandonDelivery(
        deps.db,
        input.deliveryId,
        input.series,
        `subscription is ${status}; not attempted`,
      );
      return skipped('dead_letter');
    }
    target.enable_generation = generation;

    const secret = decryptSecret(target.secret_encrypted, secretKey);
    const startedAtMs = Date.now();
    const outcome = await sendWebhookAttempt({
      url: target.url,
      // Signed when the request goes out: the Standard Webhooks timestamp is the sending time.
      headers: (sentAtMs) =>
        buildDeliveryHeaders({
          secret,
          deliveryId: target.id,
          eventType: target.event_type,
          rawBody: target.body,
          timestampSeconds: Math.floor(sentAtMs / 1000),
        }),
      rawBody: target.body,
      timeoutMs: input.timeoutMs,
      allowPrivate: deps.config.WEBHOOK_ALLOW_PRIVATE,
      internalOrigins: deps.config.WEBHOOK_INTERNAL_ORIGINS,
      lookup: options.lookup,
    });
    // The attempt's time is when its request went out, not when this activity began: under load (a
    // batch's members share one event loop) the SSRF check and the connect can take tens of ms, and
    // the next delay must count from what the receiver could see. A request that never went out
    // (refused, unreachable) counts from when the attempt began.
    const attemptedAt = new Date(outcome.sentAtMs ?? startedAtMs);
    webhookAttemptsTotal.inc({
      outcome: outcome.ok ? 'success' : outcome.statusCode === null ? 'no_response' : 'http_error',
    });
    webhookAttemptLatency.observe(outcome.latencyMs / 1000);

    const verdict = attemptVerdict(input, outcome.ok, outcome.gone);
    const next = { final: verdict.final, deliveryStatus: verdict.deliveryStatus };
    await recordAttempt(deps.db, {
      deliveryId: target.id,
      subscriptionId: target.subscription_id,
      series: input.series,
      attemptNumber: input.attemptNumber,
      statusCode: outcome.statusCode,
      latencyMs: outcome.latencyMs,
      success: outcome.ok,
      error: storableTextOrNull(outcome.error),
      // The receiver's answer is outside text: sanitized from its bytes by the attempt.
      responseExcerpt: storedExcerpt(outcome.responseBodyExcerpt, outcome.responseBodyReplaced),
      attemptedAt,
      nextStatus: next.deliveryStatus as DeliveryStatus,
      nextAttemptAt:
        next.final || input.nextDelayMs === null
          ? null
          : new Date(Math.max(Date.now(), attemptedAt.getTime() + input.nextDelayMs)),
      disableReason: verdict.disableSubscription,
      generation: target.enable_generation,
    });

    const signal: AttemptOutcomeSignal = {
      key: attemptOutcomeKey(input),
      subscriptionId: target.subscription_id,
      generation: target.enable_generation,
      success: outcome.ok,
      gone: outcome.gone,
    };
    const healthStart: SubscriptionHealthInput = {
      subscriptionId: target.subscription_id,
      failureCount: target.failure_count,
      generation: target.enable_generation,
    };
    const report = (async (): Promise<HealthReport> => {
      if (after) await after;
      try {
        if (mayChangeHealth(outcome.ok, target, attemptedAt))
          await signalSubscriptionHealth(await deps.temporal(), deps.config, signal, healthStart);
        return { unreportedOutcome: null, healthStart: null };
      } catch (err) {
        // The attempt is recorded; the workflow hands the outcome over with a retried activity.
        log.warn(
          { err, subscriptionId: target.subscription_id },
          'could not signal the health workflow; the delivery workflow will retry',
        );
        return { unreportedOutcome: signal, healthStart };
      }
    })();
    return {
      result: {
        attempted: true,
        ok: outcome.ok,
        statusCode: outcome.statusCode,
        gone: outcome.gone,
        ...next,
        attemptedAtMs: attemptedAt.getTime(),
      },
      report,
    };
  }

  /**
   * The first attempts of a batch (workflow `webhook-delivery-batch-<id>`), all at once. A member
   * whose attempt failed makes its second attempt here too when the wait before it is short (the
   * spec's 1 s, counted from when attempt 1 went out, its health signal meanwhile): a hand-over's
   * workflow start and first task took seconds under load and made that retry late. A member that
   * still has retries left is then handed over, at once, to its own delivery workflow
   * (`webhook-delivery-<id>`, continuing after the last attempt made here), which runs the longer
   * timed retries and the dead letter; no member waits for another. Idempotent like `deliverWebhookAttempt`: when Temporal retries this activity,
   * recorded attempts are not sent again, their hand-over is repeated (a duplicate start is a no-op)
   * and their health outcome reported again (the health workflow counts a key once).
   */
  async function deliverFirstAttempts(
    input: FirstAttemptsActivityInput,
  ): Promise<WebhookFirstAttemptsResult> {
    const members = await findBatchMembers(deps.db, input.batchWorkflowId);
    const total = totalAttempts(input.retryDelaysMs);
    let infrastructureError: unknown = null;
    // The second attempt is made here too when its wait is short (see IN_BATCH_RETRY_MAX_MS).
    const firstDelayMs = input.retryDelaysMs[0];
    const secondHere =
      firstDelayMs !== undefined &&
      firstDelayMs <= IN_BATCH_RETRY_MAX_MS &&
      input.timeoutMs + firstDelayMs <= IN_BATCH_SECOND_ATTEMPT_BUDGET_MS;
    const results = await Promise.all(
      members.map(async (member): Promise<WebhookFirstAttemptsResult['deliveries'][number]> => {
        // A replay took over (its own workflow), or the delivery already ended: nothing to do here.
        if (member.series !== 0) return { deliveryId: member.id, outcome: 'skipped', statusCode: null };
        try {
          const reports: Promise<HealthReport>[] = [];
          const made = await makeAttempt(
            {
              deliveryId: member.id,
              series: 0,
              attemptNumber: 1,
              totalAttempts: total,
              timeoutMs: input.timeoutMs,
              nextDelayMs: firstDelayMs ?? null,
              notBeforeMs: null,
            },
            null,
          );
          reports.push(made.report);
          let attempt = made.result;
          let attemptNumber = 1;
          if (secondHere && !attempt.final && attempt.attemptedAtMs !== null) {
            // Due firstDelayMs after attempt 1 went out, whatever its health signal still takes.
            const second = await makeAttempt(
              {
                deliveryId: member.id,
                series: 0,
                attemptNumber: 2,
                totalAttempts: total,
                timeoutMs: input.timeoutMs,
                nextDelayMs: input.retryDelaysMs[1] ?? null,
                notBeforeMs: attempt.attemptedAtMs + firstDelayMs!,
              },
              made.report,
            );
            reports.push(second.report);
            attempt = second.result;
            attemptNumber = 2;
          }
          for (const report of reports) {
            const { unreportedOutcome, healthStart } = await report;
            if (unreportedOutcome && healthStart)
              await reportAttemptOutcome({ outcome: unreportedOutcome, start: healthStart });
          }
          if (!attempt.final && attempt.attemptedAtMs !== null) {
            await startDeliveryWorkflow(
              await deps.temporal(),
              deps.config,
              { id: member.id, series: 0, workflow_id: deliveryWorkflowId(member.id, 0) },
              {
                retryDelaysMs: input.retryDelaysMs,
                timeoutMs: input.timeoutMs,
                startAfterAttempt: { attemptNumber, attemptedAtMs: attempt.attemptedAtMs },
              },
            );
          }
          const outcome =
            attempt.deliveryStatus === 'delivered'
              ? 'delivered'
              : attempt.deliveryStatus === 'superseded'
                ? 'skipped'
                : attempt.final
                  ? 'dead_letter'
                  : 'retrying';
          return { deliveryId: member.id, outcome, statusCode: attempt.statusCode };
        } catch (err) {
          // Database or Temporal unavailable: finish the others, then fail so that Temporal retries.
          infrastructureError = err;
          return { deliveryId: member.id, outcome: 'skipped', statusCode: null };
        }
      }),
    );
    if (infrastructureError) throw infrastructureError;
    return { deliveries: results };
  }

  /**
   * Last resort of a batch whose activity kept failing for infrastructure reasons: every member not
   * finished yet gets its own delivery workflow for its whole series. That workflow's attempt 1 finds
   * an attempt the batch already recorded and continues after it (nothing is sent twice).
   */
  async function handOverBatchMembers(input: FirstAttemptsActivityInput): Promise<number> {
    const members = await findBatchMembers(deps.db, input.batchWorkflowId);
    const client = await deps.temporal();
    let handedOver = 0;
    for (const member of members) {
      if (member.series !== 0 || (member.status !== 'pending' && member.status !== 'retrying')) continue;
      await startDeliveryWorkflow(
        client,
        deps.config,
        { id: member.id, series: 0, workflow_id: deliveryWorkflowId(member.id, 0) },
        {
          retryDelaysMs: input.retryDelaysMs,
          timeoutMs: input.timeoutMs,
        },
      );
      handedOver++;
    }
    return handedOver;
  }

  async function reportAttemptOutcome(input: {
    outcome: AttemptOutcomeSignal;
    start: SubscriptionHealthInput;
  }): Promise<void> {
    await signalSubscriptionHealth(await deps.temporal(), deps.config, input.outcome, input.start);
  }

  async function persistSubscriptionFailureCount(input: {
    subscriptionId: string;
    generation: number;
    failureCount: number;
  }): Promise<void> {
    await setFailureCount(deps.db, input.subscriptionId, input.generation, input.failureCount);
  }

  async function disableSubscriptionForFailures(input: {
    subscriptionId: string;
    generation: number;
    /** The count now (stored as failure_count): 0 when a success came later in the same batch. */
    failureCount: number;
    /** The count that reached the threshold (absent from runs started before it was passed). */
    reachedCount?: number;
  }): Promise<boolean> {
    const row = await disableSubscription(
      deps.db,
      input.subscriptionId,
      input.generation,
      `${input.reachedCount ?? input.failureCount} consecutive failed delivery attempts`,
      input.failureCount,
    );
    if (row)
      log.warn(
        { subscriptionId: input.subscriptionId, failureCount: input.failureCount },
        'webhook subscription disabled',
      );
    else await setFailureCount(deps.db, input.subscriptionId, input.generation, input.failureCount);
    return row !== null;
  }

  async function abandonWebhookDelivery(input: {
    deliveryId: string;
    series: number;
    reason: string;
  }): Promise<void> {
    await abandonDelivery(deps.db, input.deliveryId, input.series, input.reason);
  }

  return {
    deliverWebhookAttempt,
    deliverFirstAttempts,
    handOverBatchMembers,
    reportAttemptOutcome,
    persistSubscriptionFailureCount,
    disableSubscriptionForFailures,
    abandonWebhookDelivery,
  };
}

export type DeliverySteps = ReturnType<typeof createDeliverySteps>;
