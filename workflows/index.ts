/**
 * The workflow bundle's registry: every workflow the worker runs, re-exported from the feature
 * that owns it (src/domain/<feature>/workflows/), and nothing else. The worker bundles this file
 * (workflowsPath; scripts/build.mjs bundles it into dist/workflow-bundle.js), the replay test
 * replays recorded histories against it and temporal/capture-histories.ts captures its types.
 * Workflow code is deterministic only: no I/O, clock or randomness; timers via sleep/condition
 * (eslint.config.mjs keeps its imports).
 */
export * from '../src/domain/submissions/workflows/submission';
export * from '../src/domain/submissions/workflows/submission-sweeper';
export * from '../src/domain/submissions/workflows/submission-outcome';
export * from '../src/domain/webhooks/workflows/webhook-delivery';
export * from '../src/domain/webhooks/workflows/subscription-health';
export * from '../src/domain/challenges/workflows/challenge-lifecycle';
export * from '../src/domain/challenges/workflows/dry-run';
export * from '../src/domain/connector/workflows/spectator-relay';
export * from '../src/domain/matches/workflows/match';
export * from '../src/domain/matches/workflows/matchmaker';
