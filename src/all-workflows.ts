/**
 * The workflow bundle's registry: every workflow the worker runs, re-exported from the feature
 * that owns it (src/domain/<feature>/workflows/). The worker bundles this file (workflowsPath) and
 * the replay test replays recorded histories against it. Workflow code is deterministic only: no
 * I/O, clock or randomness; timers via sleep/condition (eslint.config.mjs keeps its imports).
 */
export * from './domain/submissions/workflows/submission';
export * from './domain/submissions/workflows/submission-sweeper';
export * from './domain/submissions/workflows/submission-outcome';
export * from './domain/webhooks/workflows/webhook-delivery';
export * from './domain/webhooks/workflows/subscription-health';
export * from './domain/challenges/workflows/challenge-lifecycle';
export * from './domain/challenges/workflows/dry-run';
export * from './domain/connector/workflows/spectator-relay';
