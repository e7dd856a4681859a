import type { ReleaseOutcome } from '../src/db/queries/live-events';
import type { ReleaseDueInput } from '../src/domain/connector/contract';
import { releaseDueLiveEvents } from '../src/domain/connector/release';
import type { ServiceDeps } from '../src/service-deps';

/** The spectator relay's activity: a thin adapter over the release step (src/domain/connector/release.ts). */
export function createSpectatorActivities(deps: ServiceDeps) {
  return {
    async releaseDueLiveEvents(input: ReleaseDueInput): Promise<ReleaseOutcome> {
      return releaseDueLiveEvents(deps, input);
    },
  };
}
