import type { Client as TemporalClient } from '@temporalio/client';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import type { Config } from './config';
import type { ChallengeStore } from './db/queries/challenge-transitions';
import type { ClarificationStore } from './db/queries/clarifications';
import type { CredentialStore } from './db/queries/credentials';
import type { MatchVoidStore } from './db/queries/match-finish';
import type { PrivatePassStore } from './db/queries/private-passes';
import type { WorkflowStartStore } from './db/queries/submissions';

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
  /**
   * The features' stores, where a feature has one (src/db/queries/<table>.ts: its interface and
   * its SQL implementation on `db`, the default); a unit test hands in-memory ones (test/fakes/stores/).
   */
  stores?: Partial<Stores>;
}

/** The typed stores of the features that have one (docs/decisions/platform.md, "Typed stores"). */
export interface Stores {
  clarifications: ClarificationStore;
  privatePasses: PrivatePassStore;
  credentials: CredentialStore;
  workflowStarts: WorkflowStartStore;
  matchVoids: MatchVoidStore;
  challenges: ChallengeStore;
}

/** The domain's clock: injected so that a unit test decides what time it is. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** The time by the deps' clock (the system clock when none was injected). */
export const nowOf = (deps: { clock?: Clock }): Date => (deps.clock ?? systemClock).now();
