/**
 * Every workflow the worker runs, re-exported from its feature file. Workflow code is
 * deterministic only: no I/O, clock or randomness; timers via sleep/condition.
 */
export {};
export * from './submission';
export * from './submission-sweeper';
export * from './webhook-delivery';
export * from './subscription-health';
export * from './challenge-lifecycle';
export * from './spectator-relay';
