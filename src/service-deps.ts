import type { Client as TemporalClient } from '@temporalio/client';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import type { Config } from './config';

/**
 * What the domain needs from the outside world, built once per process and injected. The API's
 * dependencies (src/api/deps.ts) extend it; the worker hands it to the features' step factories
 * (activities/index.ts).
 */
export interface ServiceDeps {
  config: Config;
  db: Pool;
  logger: Logger;
  /** Lazily connected: a process starts (and serves reads) even while Temporal is still coming up. */
  temporal: () => Promise<TemporalClient>;
  /** What time it is for the domain; the system clock unless a test hands it a fake (test/fakes/clock.ts). */
  clock?: Clock;
}

/** The domain's clock: injected so that a unit test decides what time it is. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** The time by the deps' clock (the system clock when none was injected). */
export const nowOf = (deps: { clock?: Clock }): Date => (deps.clock ?? systemClock).now();
