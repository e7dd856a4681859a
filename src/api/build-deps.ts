import type { Logger } from 'pino';
import { CredentialCache } from '../auth/credential-cache';
import { createSessionJwtVerifier } from '../auth/jwt';
import { NotificationListener } from '../db/notification-listener';
import { leaderboardVersionReader } from '../domain/leaderboard';
import { createSignIn } from '../domain/accounts/sign-in';
import { LiveHub } from '../runtime/live-hub';
import type { Config } from '../config';
import { createPool } from '../db/pool';
import type { AgentKeyAuthRow } from '../db/queries/agent-keys';
import type { ApiTokenAuthRow } from '../db/queries/api-tokens';
import { lazyTemporalClient } from '../temporal-client/client';
import type { AppDeps } from './deps';
import { Redis } from 'ioredis';
import { createPostgresRateLimiter, createRedisRateLimiter } from './rate-limits';

/** Builds the API's dependencies once; `close` releases them on shutdown. */
export function buildDeps(config: Config, logger: Logger): { deps: AppDeps; close: () => Promise<void> } {
  const db = createPool(config.DATABASE_URL, config.DATABASE_POOL_MAX);
  const temporal = lazyTemporalClient(config);
  // Rate-limit counters need no durability: their own small pool commits without waiting for the
  // WAL flush, which takes an fsync off every request (docs/benchmarks.md). Its connections stay
  // open through a lull of a minute (pg's default closes them after 10 s idle): a take after a
  // lull would otherwise wait for a new backend and prepare its statement again.
  const limiterDb = createPool(config.DATABASE_URL, 5, { synchronousCommit: false, idleTimeoutMs: 60_000 });
  // Without enableOfflineQueue a Redis outage fails fast into the insurance limiter.
  const redis =
    config.REDIS_URL && !config.RATE_LIMIT_DISABLED
      ? new Redis(config.REDIS_URL, { enableOfflineQueue: false, lazyConnect: false })
      : null;
  redis?.on('error', (err) =>
    logger.warn({ err: err.message }, 'redis (rate limits) unavailable; per-process limits meanwhile'),
  );
  // One LISTEN connection for the process: credential revocations and spectator releases.
  const notifications = new NotificationListener(config.DATABASE_URL, logger);
  const credentialCache = new CredentialCache<ApiTokenAuthRow | AgentKeyAuthRow>(
    notifications,
    config.CREDENTIAL_CACHE_TTL_MS,
  );
  credentialCache.start();
  const liveHub = new LiveHub(notifications, logger);
  const deps: AppDeps = {
    config,
    db,
    temporal: temporal.get,
    logger,
    jwt: createSessionJwtVerifier(config),
    rateLimiter: redis
      ? createRedisRateLimiter(redis, { keyPrefix: config.RATE_LIMIT_REDIS_PREFIX })
      : createPostgresRateLimiter(limiterDb, { disabled: config.RATE_LIMIT_DISABLED }),
    credentialCache,
    liveHub,
    leaderboardVersion: leaderboardVersionReader(db),
    signIn: createSignIn(db, config, logger),
  };
  return {
    deps,
    close: async () => {
      credentialCache.stop();
      await notifications.close();
      await temporal.close();
      redis?.disconnect();
      await Promise.all([db.end(), limiterDb.end()]);
    },
  };
}
