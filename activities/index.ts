import type { ServiceDeps } from '../src/service-deps';
import { createDryRunSteps } from '../src/domain/challenges/dry-run';
import { createLifecycleSteps } from '../src/domain/challenges/lifecycle';
import { createRelaySteps } from '../src/domain/connector/release';
import { createSubmissionActivities } from '../src/domain/submissions/activities';
import { createJudgingSteps } from '../src/domain/submissions/judging';
import { createDeliverySteps } from '../src/domain/webhooks/delivery';
import { createMatchStartSteps } from '../src/domain/matches/start';
import { createBoutSteps } from '../src/domain/matches/bout';
import { createGameMatchSteps } from '../src/domain/matches/game';
import { createSettleSteps } from '../src/domain/matches/settle';
import { createMatchmakingSteps } from '../src/domain/matches/matchmaking';
import { attemptedAtMostTwice } from '../src/domain/matches/activities';
import { createMatchDeadlineSteps } from '../src/domain/matches/deadline';

/**
 * The worker's activity registry: every activity, built straight from its feature's step factory
 * under the type names the workflows (and their recorded histories) use; each is idempotent because
 * Temporal may run it twice. Only src/worker.ts imports this (eslint.config.mjs); `stopping` ends
 * the long activity loops at once when the worker is asked to stop.
 */
export function createActivities(deps: ServiceDeps, stopping: AbortSignal) {
  return {
    ...createDeliverySteps(deps),
    ...createLifecycleSteps(deps),
    ...createDryRunSteps(deps),
    ...createJudgingSteps(deps.db),
    ...createSubmissionActivities(deps, stopping),
    ...createRelaySteps(deps),
    // A match's life (src/domain/matches/), bouts and games alike: a deterministic failure is
    // attempted at most twice (the workflow then voids it).
    ...attemptedAtMostTwice(createMatchStartSteps(deps)),
    ...attemptedAtMostTwice(createBoutSteps(deps)),
    ...attemptedAtMostTwice(createGameMatchSteps(deps)),
    ...attemptedAtMostTwice(createSettleSteps(deps)),
    ...attemptedAtMostTwice(createMatchDeadlineSteps(deps)),
    ...createMatchmakingSteps(deps),
  };
}
