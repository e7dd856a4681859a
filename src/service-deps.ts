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
}
