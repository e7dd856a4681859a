import {
  allHandlersFinished,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  patched,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { DeliverySteps } from '../delivery';
import {
  ATTEMPT_OUTCOME_SIGNAL,
  HEALTH_IDLE_TIMEOUT_MS,
  HEALTH_STATE_QUERY,
  type AttemptOutcomeSignal,
  type SubscriptionHealthInput,
  type SubscriptionHealthState,
} from '../contract';
import { countOutcomes, shouldDisableSubscription } from '../contract';

export const attemptOutcomeSignal = defineSignal<[AttemptOutcomeSignal]>(ATTEMPT_OUTCOME_SIGNAL);
export const healthStateQuery = defineQuery<SubscriptionHealthState>(HEALTH_STATE_QUERY);

const acts = proxyActivities<DeliverySteps>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '30s' },
});

/** patched(): the count a batch reached restarts at a re-enable (countOutcomes). */
export const PEAK_PER_GENERATION = 'health-peak-per-generation';

/** Signals handled per run before continuing as new (history stays far below Temporal's limits). */
export const HEALTH_SIGNALS_PER_RUN = 1000;
/** Outcome keys remembered for de-duplication (a retried activity may signal twice). */
const RECENT_KEYS = 256;

/**
 * Subscription health (workflow id `subscription-health-<subscriptionId>`, long-lived).
 *
 * Counts consecutive failed delivery attempts of one subscription across all its deliveries: every
 * failed attempt +1, a successful one resets to 0; when the count reaches 10 it disables the
 * subscription (status disabled, active false). The count is persisted as failure_count.
 *
 * Ordering: "consecutive" means in the order the outcomes reach this workflow (signal order), which
 * for concurrent deliveries to one subscription is their completion order as Temporal records it.
 * Outcomes carry the subscription's enable_generation: after a re-enable (PATCH active: true, which
 * resets failure_count and bumps the generation) outcomes of attempts made before it are ignored
 * and the count restarts at 0.
 */
export async function subscriptionHealthWorkflow(input: SubscriptionHealthInput): Promise<void> {
  let failureCount = input.failureCount;
  let generation = input.generation;
  let persistedCount = input.persistedCount ?? input.failureCount;
  let disabledGeneration: number | null = input.disabledGeneration ?? null;
  const recent: string[] = [...(input.recentKeys ?? [])];
  const recentSet = new Set(recent);
  const queue: AttemptOutcomeSignal[] = [];
  let signalsThisRun = 0;

  setHandler(attemptOutcomeSignal, (outcome) => {
    queue.push(outcome);
  });
  setHandler(healthStateQuery, () => ({ failureCount, generation, signalsThisRun, disabledGeneration }));

  for (;;) {
    // The timer's length is not part of the history's determinism: runs started without the input replay.
    const woke = await condition(() => queue.length > 0, input.idleTimeoutMs ?? HEALTH_IDLE_TIMEOUT_MS);
    if (!woke) return; // idle: end this run; the persisted count carries over

    const fresh: AttemptOutcomeSignal[] = [];
    while (queue.length > 0) {
      const outcome = queue.shift()!;
      signalsThisRun++;
      if (recentSet.has(outcome.key)) continue;
      recent.push(outcome.key);
      recentSet.add(outcome.key);
      if (recent.length > RECENT_KEYS) recentSet.delete(recent.shift()!);
      fresh.push(outcome);
    }
    // A re-enable in the middle of a batch used to keep the older generation's peak, which could
    // disable the re-enabled subscription at once; runs that made that decision replay it.
    const counted = countOutcomes({ failureCount, generation }, fresh, {
      peakAcrossReEnable: fresh.some((o) => o.generation > generation) && !patched(PEAK_PER_GENERATION),
    });
    ({ failureCount, generation } = counted);
    if (counted.reEnabled) persistedCount = 0; // the re-enable wrote 0

    // The threshold, checked once per batch (contract.ts): a success later in the same batch does
    // not undo it, and the reason names the count reached, not the 0 the success left.
    const reached = Math.max(counted.peak, failureCount);
    if (disabledGeneration !== generation && shouldDisableSubscription(reached)) {
      await acts.disableSubscriptionForFailures({
        subscriptionId: input.subscriptionId,
        generation,
        failureCount,
        reachedCount: reached,
      });
      disabledGeneration = generation;
      persistedCount = failureCount;
    }
    if (failureCount !== persistedCount) {
      await acts.persistSubscriptionFailureCount({
        subscriptionId: input.subscriptionId,
        generation,
        failureCount,
      });
      persistedCount = failureCount;
    }

    if (
      (signalsThisRun >= (input.maxSignalsPerRun ?? HEALTH_SIGNALS_PER_RUN) ||
        workflowInfo().continueAsNewSuggested) &&
      queue.length === 0
    ) {
      await condition(allHandlersFinished);
      if (queue.length === 0) {
        await continueAsNew<typeof subscriptionHealthWorkflow>({
          subscriptionId: input.subscriptionId,
          failureCount,
          generation,
          persistedCount,
          disabledGeneration,
          recentKeys: recent,
          maxSignalsPerRun: input.maxSignalsPerRun,
          idleTimeoutMs: input.idleTimeoutMs,
        });
      }
    }
  }
}
