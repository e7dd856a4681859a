import { releaseDueEvents, type ReleaseOutcome } from '../src/db/queries/live-events';
import type { ActivityDeps } from './index';

export interface ReleaseDueInput {
  challengeId: string;
  delayMs: number;
  /**
   * Keep releasing inside this activity while the next event falls due within this many ms of
   * the activity's start (default 0: one pass). Lets the workflow wake a little early with one
   * timer and still release each event at its exact due time, whatever the timer's lateness.
   */
  holdMs?: number;
  /** While holding, at most one release transaction per this many ms (default 50): the batching grain. */
  granularityMs?: number;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Spectator-relay activities. `releaseDueLiveEvents` releases every due event in one transaction
 * (a batch), optionally repeats that for events falling due during its short hold window, and
 * reports when the next pending event is due. Idempotent: a retry releases only what is still
 * unreleased.
 */
export function createSpectatorActivities(deps: ActivityDeps) {
  return {
    async releaseDueLiveEvents(input: ReleaseDueInput): Promise<ReleaseOutcome> {
      const holdMs = input.holdMs ?? 0;
      const granularityMs = input.granularityMs ?? 50;
      const started = Date.now();
      let released = 0;
      for (;;) {
        const outcome = await releaseDueEvents(deps.db, input.challengeId, input.delayMs);
        released += outcome.released;
        const remaining = holdMs - (Date.now() - started);
        if (outcome.nextDueInMs === null || outcome.nextDueInMs > remaining || outcome.nextDueInMs > holdMs) {
          if (released > 0) deps.logger.debug({ challengeId: input.challengeId, released, lastFeedSeq: outcome.lastFeedSeq }, 'live events released');
          return { ...outcome, released };
        }
        // A capped batch (due now) goes again at once; otherwise wait for the next due event.
        await pause(outcome.nextDueInMs === 0 && outcome.released > 0 ? 0 : Math.max(outcome.nextDueInMs, granularityMs));
      }
    },
  };
}
