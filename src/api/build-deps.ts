import type { Logger } from 'pino';
import { createSessionJwtVerifier } from '../auth/jwt';
import type { Config } from '../config';
import { createPool } from '../db/pool';
import { lazyTemporalClient } from '../temporal/client';
import type { AppDeps } from './deps';
import { createPostgresRateLimiter } from './rate-limits';

/** Builds the API's dependencies once; `close` releases them on shutdown. */
export function buildDeps(config: Config, logger: Logger): { deps: AppDeps; close: () => Promise<void> } {
  const db = createPool(config.DATABASE_URL, config.DATABASE_POOL_MAX);
  const temporal = lazyTemporalClient(config);
  const deps: AppDeps = {
    config,
    db,
    temporal: temporal.get,
    logger,
    jwt: createSessionJwtVerifier(config),
    rateLimiter: createPostgresRateLimiter(db, { disabled: config.RATE_LIMIT_DISABLED }),
  };
  return {
    deps,
    close: async () => {
      await temporal.close();
      await db.end();
    },
  };
}
