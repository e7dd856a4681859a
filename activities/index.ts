import type { ServiceDeps } from '../src/service-deps';
import { createSubmissionActivities } from './submissions';
import { createChallengeActivities } from './challenges';
import { createWebhookActivities } from './webhooks';
import { createSpectatorActivities } from './spectator';

/**
 * All activities, as a factory over the service's dependencies (built once in the worker and
 * injected; no globals). Each feature contributes its own `create...Activities(deps)`; activities
 * are idempotent because Temporal may run them twice. `stopping` aborts when the worker stops.
 */
export function createActivities(deps: ServiceDeps, options: { stopping: AbortSignal }) {
  return {
    ...createWebhookActivities(deps),
    ...createChallengeActivities(deps),
    ...createSubmissionActivities(deps, options.stopping),
    ...createSpectatorActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
