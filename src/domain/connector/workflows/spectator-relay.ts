import {
  allHandlersFinished,
  condition,
  continueAsNew,
  defineSignal,
  proxyLocalActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { RelaySteps } from '../release';
import {
  RELAY_BATCH_WINDOW_MS,
  RELAY_HOLD_MS,
  RELAY_IDLE_TIMEOUT_MS,
  RELAY_MAX_ITERATIONS,
  RELAY_TIMER_LEAD_MS,
  LIVE_EVENTS_ARRIVED_SIGNAL,
  type LiveEventsArrivedSignal,
  type SpectatorRelayInput,
  type SpectatorRelayResult,
} from '../contract';

/**
 * A local activity: one short database transaction, run by the worker that runs this workflow,
 * without a round trip through the task queue, so a release lands within milliseconds of its
 * timer (the delay is a promise to spectators: 30 s, not 30 s plus queueing).
 */
const { releaseDueLiveEvents } = proxyLocalActivities<RelaySteps>({
  startToCloseTimeout: '15s',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '5s' },
});

const liveEventsArrivedSignal = defineSignal<[LiveEventsArrivedSignal?]>(LIVE_EVENTS_ARRIVED_SIGNAL);

/**
 * One relay per challenge (workflow id `spectator-relay-<challengeId>`). The database holds the
 * state (which events are released); this loop only decides when to look:
 *
 *   release everything due (one local activity) → sleep until the oldest pending event is due
 *   (one timer, waking 1 s early) → again; with nothing pending, wait for a nudge signal from the
 *   stream route.
 *
 * Precision: the release step may hold for up to 2 s, releasing whatever falls due in that
 * window at its due time, batched by `batchWindowMs` (100 ms): one DB transaction per grain,
 * never one per event. The timer wakes early because short server timers can fire hundreds of
 * milliseconds late; being early is harmless (nothing is released before it is due).
 *
 * Signals are nudges, not data: one during a sleep changes nothing (the next step reads the
 * database anyway). The run ends after `idleTimeoutMs` without work (the next event starts a new
 * one through signalWithStart) or when the challenge closed and nothing is pending, and continues
 * as new after `maxIterations` steps or when Temporal suggests it, so history stays small.
 */
export async function spectatorRelayWorkflow(input: SpectatorRelayInput): Promise<SpectatorRelayResult> {
  let delayMs = input.delayMs;
  let nudged = false;
  setHandler(liveEventsArrivedSignal, (signal) => {
    nudged = true;
    if (signal?.delayMs !== undefined) delayMs = signal.delayMs;
  });
  const idleTimeoutMs = input.idleTimeoutMs ?? RELAY_IDLE_TIMEOUT_MS;
  const maxIterations = input.maxIterations ?? RELAY_MAX_ITERATIONS;
  const batchWindowMs = input.batchWindowMs ?? RELAY_BATCH_WINDOW_MS;
  // Absent from inputs older than these fields: the constants they had then (same history on replay).
  const holdMs = input.holdMs ?? RELAY_HOLD_MS;
  const timerLeadMs = input.timerLeadMs ?? RELAY_TIMER_LEAD_MS;
  let released = 0;

  for (let step = 0; ; step++) {
    if (step >= maxIterations || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      return continueAsNew<typeof spectatorRelayWorkflow>({ ...input, delayMs });
    }
    nudged = false;
    const outcome = await releaseDueLiveEvents({
      challengeId: input.challengeId,
      delayMs,
      holdMs,
      granularityMs: batchWindowMs,
    });
    released += outcome.released;
    if (outcome.nextDueInMs !== null) {
      // Due soon (or a capped batch due now): the next step's hold window covers it, no timer.
      // Otherwise one timer, waking timerLeadMs early: short timers can fire late, the step's
      // hold then waits in-process for the exact due time.
      if (outcome.nextDueInMs > timerLeadMs) await sleep(outcome.nextDueInMs - timerLeadMs);
      continue;
    }
    if (nudged) continue;
    if (outcome.challengeStatus !== 'active') {
      await condition(allHandlersFinished);
      if (!nudged) return { steps: step + 1, released, ended: 'challenge_closed' };
      continue;
    }
    await condition(() => nudged, idleTimeoutMs);
    if (!nudged) {
      await condition(allHandlersFinished);
      if (!nudged) return { steps: step + 1, released, ended: 'idle' };
    }
  }
}
