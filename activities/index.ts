import type { ServiceDeps } from '../src/service-deps';
import { createSubmissionActivities } from './submissions';
import { createChallengeActivities } from './challenges';
import { createWebhookActivities } from './webhooks';
import { createSpectatorActivities } from './spectator';

/** What activities may touch: the service's dependencies, built once in the worker and injected (no globals). */
export type ActivityDeps = ServiceDeps;

/**
 * All activities, as a factory over injected clients. Each feature contributes its own
 * `create...Activities(deps)`; activities are idempotent because Temporal may run them twice.
 */
export function createActivities(_deps: ActivityDeps, options: { stopping: AbortSignal }) {
  return {
    ...createWebhookActivities(_deps),
    ...createChallengeActivities(_deps),
    ...createSubmissionActivities(_deps, options.stopping),
    ...createSpectatorActivities(_deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
