/** Releasing delayed live events to spectators: the relay workflow's one step. */
import { releaseDueEvents, type ReleaseOutcome } from '../../db/queries/live-events';
import type { ServiceDeps } from '../../service-deps';
import type { ReleaseDueInput } from './contract';

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Releases every due event in one transaction (a batch), optionally repeats that for events
 * falling due during its short hold window, and reports when the next pending event is due.
 * Idempotent: a retry releases only what is still unreleased.
 */
async function releaseDueLiveEvents(
  deps: Pick<ServiceDeps, 'db' | 'logger'>,
  input: ReleaseDueInput,
): Promise<ReleaseOutcome> {
  const holdMs = input.holdMs ?? 0;
  const granularityMs = input.granularityMs ?? 50;
  const started = Date.now();
  let released = 0;
  for (;;) {
    const outcome = await releaseDueEvents(deps.db, input.challengeId, input.delayMs);
    released += outcome.released;
    const remaining = holdMs - (Date.now() - started);
    if (outcome.nextDueInMs === null || outcome.nextDueInMs > remaining || outcome.nextDueInMs > holdMs) {
      if (released > 0)
        deps.logger.debug(
          { challengeId: input.challengeId, released, lastFeedSeq: outcome.lastFeedSeq },
          'live events released',
        );
      return { ...outcome, released };
    }
    // A capped batch (due now) goes again at once; otherwise wait for the next due event.
    await pause(
      outcome.nextDueInMs === 0 && outcome.released > 0 ? 0 : Math.max(outcome.nextDueInMs, granularityMs),
    );
  }
}

/** The relay workflow's step as the worker registers it (activity type `releaseDueLiveEvents`, named by recorded histories). */
export function createRelaySteps(deps: Pick<ServiceDeps, 'db' | 'logger'>) {
  return { releaseDueLiveEvents: (input: ReleaseDueInput) => releaseDueLiveEvents(deps, input) };
}

export type RelaySteps = ReturnType<typeof createRelaySteps>;
