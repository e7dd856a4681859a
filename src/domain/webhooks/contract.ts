/**
 * The webhook workflows' contract: names, ids, payloads and the delivery schedule shared by the
 * workflows (webhook-delivery, subscription-health), their activities and the code that starts or
 * signals them. No imports on purpose: the workflow bundle imports this file.
 */

export const WEBHOOK_DELIVERY_WORKFLOW = 'webhookDeliveryWorkflow';
export const WEBHOOK_FIRST_ATTEMPTS_WORKFLOW = 'webhookFirstAttemptsWorkflow';
export const SUBSCRIPTION_HEALTH_WORKFLOW = 'subscriptionHealthWorkflow';
export const ATTEMPT_OUTCOME_SIGNAL = 'attemptOutcome';
export const HEALTH_STATE_QUERY = 'healthState';

export function healthWorkflowId(subscriptionId: string): string {
  return `subscription-health-${subscriptionId}`;
}

/** Workflow id of a delivery's attempt series: the original, or the n-th replay. */
export function deliveryWorkflowId(deliveryId: string, series: number): string {
  return series === 0 ? `webhook-delivery-${deliveryId}` : `webhook-delivery-${deliveryId}-replay-${series}`;
}

/** Workflow id of a batch of first attempts, named after its first delivery. */
export function batchWorkflowId(firstDeliveryId: string): string {
  return `webhook-delivery-batch-${firstDeliveryId}`;
}

export interface WebhookDeliveryInput {
  deliveryId: string;
  /** 0 = the original attempt series, n = the n-th replay. */
  series: number;
  /** Waits before attempts 2..n (default: the spec's 1 s, 5 s, 30 s). */
  retryDelaysMs?: number[];
  /** Per-attempt timeout (default 10 s). */
  timeoutMs?: number;
  /**
   * The series' attempts up to this one were already made (by a first-attempt batch): continue with
   * the next attempt, its delay counted from `attemptedAtMs` (epoch ms, when that attempt's request went out).
   */
  startAfterAttempt?: { attemptNumber: number; attemptedAtMs: number };
}

/** A batch of first attempts (workflow `webhook-delivery-batch-<first delivery id>`). */
export interface WebhookFirstAttemptsInput {
  /** Handed to the delivery workflows of failed first attempts (default: the spec's schedule). */
  retryDelaysMs?: number[];
  timeoutMs?: number;
}

export interface FirstAttemptsActivityInput {
  /** The members are the deliveries stored with this batch workflow id. */
  batchWorkflowId: string;
  retryDelaysMs: number[];
  timeoutMs: number;
}

/** What became of each member's first attempt (shown in the Temporal UI as the workflow result). */
export interface WebhookFirstAttemptsResult {
  deliveries: {
    deliveryId: string;
    /** delivered; retrying = handed over to webhook-delivery-<id>; dead_letter; skipped = replayed or already finished. */
    outcome: 'delivered' | 'retrying' | 'dead_letter' | 'skipped';
    statusCode: number | null;
  }[];
}

export interface WebhookDeliveryResult {
  status: 'delivered' | 'dead_letter' | 'superseded';
  attempts: number;
}

/** One finished attempt, as the subscription-health workflow receives it. */
export interface AttemptOutcomeSignal {
  /** `<deliveryId>:<series>:<attempt>`: a repeated signal (activity retried) is counted once. */
  key: string;
  subscriptionId: string;
  /** The subscription's enable_generation when the attempt was made. */
  generation: number;
  success: boolean;
  /** The receiver answered 410 Gone (the attempt activity has already disabled the subscription). */
  gone: boolean;
}

export interface SubscriptionHealthInput {
  subscriptionId: string;
  /** Consecutive failed attempts so far (the persisted failure_count when starting). */
  failureCount: number;
  generation: number;
  /** Carried across continue-as-new: recently counted outcome keys. */
  recentKeys?: string[];
  /** Generation already disabled by this workflow (no second disable call). */
  disabledGeneration?: number | null;
  persistedCount?: number;
  /** Continue-as-new after this many signals (default 1000; tests use a small number). */
  maxSignalsPerRun?: number;
  /** A run with no outcome for this long ends (default 24 h; tests use milliseconds). */
  idleTimeoutMs?: number;
}

/** A health run with nothing to do ends after this long; the next outcome starts a new one from the persisted count. */
export const HEALTH_IDLE_TIMEOUT_MS = 24 * 60 * 60 * 1000;

export interface SubscriptionHealthState {
  failureCount: number;
  generation: number;
  signalsThisRun: number;
  disabledGeneration: number | null;
}

export interface DeliverAttemptInput {
  deliveryId: string;
  series: number;
  attemptNumber: number;
  totalAttempts: number;
  timeoutMs: number;
  /** Wait before the next attempt, null after the last one. */
  nextDelayMs: number | null;
  /**
   * Do not send before this time (epoch ms, worker clock): the schedule's exact moment. The workflow
   * sleeps on a Temporal timer until shortly before it and the activity waits the rest in-process.
   */
  notBeforeMs?: number | null;
}

/**
 * Marker of the change that catches an attempt (local activity) failed for good: it reaches the
 * workflow as the activity's own ApplicationFailure, not wrapped in an ActivityFailure, so before
 * it the series' abandon and the batch's hand-over never ran and the workflow failed instead.
 */
export const LOCAL_ATTEMPT_FAILURE_PATCH = 'webhook-local-attempt-failure';

/** Waits up to this long happen inside the attempt activity instead of on a Temporal timer. */
export const IN_ACTIVITY_WAIT_MAX_MS = 1000;
/** A Temporal timer ends this long before the attempt is due; the activity waits the rest. */
export const TIMER_LEAD_MS = 300;

export interface DeliverAttemptResult {
  /** The attempt was made (false: skipped because the subscription is not active or the series was superseded). */
  attempted: boolean;
  ok: boolean;
  statusCode: number | null;
  gone: boolean;
  /** Nothing more to do for this series. */
  final: boolean;
  deliveryStatus: 'pending' | 'retrying' | 'delivered' | 'dead_letter' | 'superseded';
  /**
   * When the attempt's request went out (epoch ms; when it began if it never went out); null when not
   * attempted. The next delay counts from here; it is also the recorded attempted_at.
   */
  attemptedAtMs: number | null;
  /** Set when the outcome still has to reach the health workflow (the activity could not signal it). */
  unreportedOutcome: AttemptOutcomeSignal | null;
  healthStart: SubscriptionHealthInput | null;
}

// ---- the delivery schedule (spec section 6 "Delivery", DESIGN.md Webhooks) ------------------------
//
// The spec's table lists four attempts (at once, +1 s, +5 s, +30 s) but its prose says "after 3 failed
// attempts ... dead_letter"; DESIGN.md settles it: 4 attempts in all, dead_letter when all 4 fail.
// The delays are the waits BEFORE attempts 2..n, so there is always one more attempt than delays.

export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = Object.freeze([1000, 5000, 30000]);

/** Per attempt: DNS + connect + response head (spec section 8); pass it as sendWebhookAttempt timeoutMs. */
export const ATTEMPT_TIMEOUT_MS = 10_000;

/** Consecutive failed attempts (across deliveries) after which a subscription is disabled. */
export const DISABLE_AFTER_CONSECUTIVE_FAILURES = 10;

export function totalAttempts(retryDelaysMs: readonly number[] = DEFAULT_RETRY_DELAYS_MS): number {
  return retryDelaysMs.length + 1;
}

/**
 * Wait before attempt `attemptNumber` (1-based): 0 for the first, null when there is no such attempt
 * (the delivery is then dead_letter).
 */
export function delayBeforeAttempt(
  attemptNumber: number,
  retryDelaysMs: readonly number[] = DEFAULT_RETRY_DELAYS_MS,
): number | null {
  if (!Number.isInteger(attemptNumber) || attemptNumber < 1) {
    throw new RangeError(`attempt numbers start at 1, got ${attemptNumber}`);
  }
  if (attemptNumber === 1) return 0;
  return retryDelaysMs[attemptNumber - 2] ?? null;
}

/**
 * The auto-disable decision, the one place the threshold is compared: `failureCount` is the highest
 * consecutive-failure count the subscription reached (the health workflow asks once per batch of outcomes).
 */
export function shouldDisableSubscription(failureCount: number): boolean {
  return failureCount >= DISABLE_AFTER_CONSECUTIVE_FAILURES;
}

/** A subscription's consecutive-failure count, as the health workflow holds it. */
export interface HealthCount {
  failureCount: number;
  generation: number;
}

/**
 * One batch of attempt outcomes (signal order, repeats already removed) applied to the count: a
 * failure +1, a success back to 0, an outcome of an older generation ignored, a newer generation (a
 * re-enable, which wrote 0) restarts the count. `peak` is the highest count the batch reached: ten
 * failures then a success in one batch end at 0 but reached 10, and the disable names that 10.
 */
export function countOutcomes(
  start: HealthCount,
  outcomes: readonly Pick<AttemptOutcomeSignal, 'generation' | 'success'>[],
  /** Histories of runs before the peak was per generation kept it across a re-enable (replay only). */
  options: { peakAcrossReEnable?: boolean } = {},
): HealthCount & { peak: number; reEnabled: boolean } {
  let { failureCount, generation } = start;
  let peak = 0;
  let reEnabled = false;
  for (const outcome of outcomes) {
    if (outcome.generation < generation) continue; // attempt made before the last re-enable
    if (outcome.generation > generation) {
      generation = outcome.generation;
      failureCount = 0;
      if (!options.peakAcrossReEnable) peak = 0;
      reEnabled = true;
    }
    failureCount = outcome.success ? 0 : failureCount + 1;
    peak = Math.max(peak, failureCount);
  }
  return { failureCount, generation, peak, reEnabled };
}
