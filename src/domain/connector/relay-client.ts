import type { ServiceDeps } from '../../service-deps';
import { findChallengesWithOverdueEvents } from '../../db/queries/live-events';
import { markRelayBusy, markRelayIdle } from '../../db/queries/live-relay-state';
import { ChallengeIdKey } from '../../temporal-client/search-attributes';
import {
  LIVE_EVENTS_ARRIVED_SIGNAL,
  SPECTATOR_RELAY_WORKFLOW,
  spectatorRelayWorkflowId,
  type LiveEventsArrivedSignal,
  type SpectatorRelayInput,
} from './contract';

/** An unreleased event this far past its release time means the relay is not running: signal again. */
export const RELAY_OVERDUE_GRACE_MS = 5_000;
const OVERDUE_SIGNAL_EVERY_MS = 5_000;
const SIGNAL_ATTEMPTS = 4;

/** Per API process: when the relay of a challenge was last signalled because it looked stuck. */
const lastOverdueSignal = new Map<string, number>();

/** signalWithStart: starts `spectator-relay-<challengeId>` when it is not running, then nudges it. */
export async function signalRelay(deps: ServiceDeps, challengeId: string): Promise<void> {
  const client = await deps.temporal();
  const input: SpectatorRelayInput = {
    challengeId,
    delayMs: deps.config.SPECTATOR_DELAY_MS,
    holdMs: deps.config.SPECTATOR_RELAY_HOLD_MS,
    timerLeadMs: deps.config.SPECTATOR_RELAY_TIMER_LEAD_MS,
  };
  const signal: LiveEventsArrivedSignal = { delayMs: deps.config.SPECTATOR_DELAY_MS };
  await client.workflow.signalWithStart(SPECTATOR_RELAY_WORKFLOW, {
    workflowId: spectatorRelayWorkflowId(challengeId),
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
    args: [input],
    signal: LIVE_EVENTS_ARRIVED_SIGNAL,
    signalArgs: [signal],
    typedSearchAttributes: [{ key: ChallengeIdKey, value: challengeId }],
  });
}

/**
 * One look at the relay's state after events were committed: signals only when this call woke
 * the relay (idle → busy) or the relay looks stuck, so a busy relay does not receive one signal
 * per event. The signal is sent in the background with retries; should it keep failing, the
 * relay is marked idle again so that the next event signals once more.
 */
export async function checkRelay(deps: ServiceDeps, challengeId: string): Promise<'signalled' | 'busy'> {
  const { flipped, overdue } = await markRelayBusy(
    deps.db,
    challengeId,
    deps.config.SPECTATOR_DELAY_MS,
    RELAY_OVERDUE_GRACE_MS,
  );
  let send = flipped;
  if (!send && overdue) {
    const last = lastOverdueSignal.get(challengeId) ?? 0;
    if (Date.now() - last >= OVERDUE_SIGNAL_EVERY_MS) {
      lastOverdueSignal.set(challengeId, Date.now());
      if (lastOverdueSignal.size > 10_000) lastOverdueSignal.clear();
      send = true;
    }
  }
  if (!send) return 'busy';
  void signalWithRetries(deps, challengeId);
  return 'signalled';
}

/** Per pool and challenge: a check is running; `again` = events committed after it started. */
const inFlight = new WeakMap<object, Map<string, { again: boolean }>>();

/**
 * Called after an event was committed; returns at once. Checks of one challenge are coalesced:
 * while one runs, later events only ask for one more run after it, which starts after their
 * commit, as the handshake requires (see markRelayBusy). Under load this is a few checks per
 * second per challenge instead of one per event.
 */
export function nudgeRelay(deps: ServiceDeps, challengeId: string): void {
  let perPool = inFlight.get(deps.db);
  if (!perPool) inFlight.set(deps.db, (perPool = new Map()));
  const running = perPool.get(challengeId);
  if (running) {
    running.again = true;
    return;
  }
  const state = { again: true };
  perPool.set(challengeId, state);
  void (async () => {
    // The loop test and the delete below run in one synchronous step: no nudge can slip between.
    while (state.again) {
      state.again = false;
      try {
        await checkRelay(deps, challengeId);
      } catch (err) {
        deps.logger.warn({ err, challengeId }, 'could not nudge the spectator relay');
      }
    }
    perPool.delete(challengeId);
  })();
}

async function signalWithRetries(deps: ServiceDeps, challengeId: string): Promise<void> {
  for (let attempt = 1; attempt <= SIGNAL_ATTEMPTS; attempt++) {
    try {
      await signalRelay(deps, challengeId);
      return;
    } catch (err) {
      deps.logger.warn({ err, challengeId, attempt }, 'spectator relay signal failed');
      if (attempt < SIGNAL_ATTEMPTS) await new Promise((r) => setTimeout(r, 250 * 4 ** (attempt - 1)));
    }
  }
  await markRelayIdle(deps.db, challengeId).catch((err: unknown) =>
    deps.logger.error({ err, challengeId }, 'could not mark the relay idle again'),
  );
}

/** At most this many relays restarted per sweep (a backlog is worked off over several sweeps). */
const SWEEP_LIMIT = 100;

/**
 * Restarts (signalWithStart) the relay of every challenge holding an event overdue by `graceMs`.
 * The stream route already signals when a *later* event finds an overdue one; this covers the
 * stream that went quiet after the relay was lost, where no later event comes. Returns the
 * challenges signalled. A failed signal is logged and retried at the next sweep.
 */
export async function sweepOverdueRelays(
  deps: ServiceDeps,
  graceMs = RELAY_OVERDUE_GRACE_MS,
): Promise<string[]> {
  const challengeIds = await findChallengesWithOverdueEvents(
    deps.db,
    deps.config.SPECTATOR_DELAY_MS,
    graceMs,
    SWEEP_LIMIT,
  );
  const signalled: string[] = [];
  for (const challengeId of challengeIds) {
    try {
      await signalRelay(deps, challengeId);
      signalled.push(challengeId);
    } catch (err) {
      deps.logger.warn(
        { err, challengeId },
        'could not restart an overdue spectator relay; the next sweep retries',
      );
    }
  }
  if (signalled.length > 0)
    deps.logger.warn({ challengeIds: signalled }, 'restarted spectator relays with overdue events');
  return signalled;
}
