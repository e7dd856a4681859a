import type { Client as TemporalClient } from '@temporalio/client';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import type { CredentialCache } from '../auth/credential-cache';
import type { SessionJwtVerifier } from '../auth/jwt';
import type { AgentKeyAuthRow, ApiTokenAuthRow } from '../db/queries/credentials';
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
  /** Credential rows of this process, invalidated through LISTEN/NOTIFY (src/auth/credential-cache.ts). */
  credentialCache: CredentialCache<ApiTokenAuthRow | AgentKeyAuthRow>;
}
