import type { Client as TemporalClient } from '@temporalio/client';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import type { SessionJwtVerifier } from '../auth/jwt';
import type { Config } from '../config';
import type { RateLimiter } from './rate-limits';

/** Everything a route needs from the outside world, built once at start and injected. */
export interface AppDeps {
  config: Config;
  db: Pool;
  /** Lazily connected: the API starts (and serves reads) even while Temporal is still coming up. */
  temporal: () => Promise<TemporalClient>;
  logger: Logger;
  jwt: SessionJwtVerifier;
  rateLimiter: RateLimiter;
}
