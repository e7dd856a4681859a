import { generateKeyPairSync } from 'node:crypto';

/**
 * Test configuration: real PostgreSQL (a database of its own, recreated per run), a real
 * Temporal dev server (headless, in memory) and a real worker process. Delays are shortened
 * through configuration only; the defaults in src/config.ts stay the spec's.
 */
export const TEST_TEMPORAL_PORT = Number(process.env.TEST_TEMPORAL_PORT ?? 7244);
export const TEST_DATABASE_NAME = process.env.TEST_DATABASE_NAME ?? 'challenges_test';
export const ARTIFACTS_DIR = 'test-artifacts';
/**
 * `dev` (default): the Temporal CLI's in-memory dev server. `postgres`: the real Temporal server on
 * PostgreSQL (temporal/server-postgres.sh), databases TEST_TEMPORAL_DB_PREFIX and its _visibility.
 */
export const TEMPORAL_BACKEND = process.env.TEMPORAL_BACKEND === 'postgres' ? 'postgres' : 'dev';
export const TEST_TEMPORAL_DB_PREFIX =
  process.env.TEST_TEMPORAL_DB_PREFIX ?? `temporal_${TEST_DATABASE_NAME}`;

/**
 * One signing key for the embedded OpenID provider per test run (the same key in every process
 * the run starts): each test server generated its own, 0.3–0.8 s of CPU per file on 2 cores.
 * Made once per process that asks, and kept in the environment, which the jest workers and the
 * worker process inherit from the global setup.
 */
function embeddedProviderKey(): string {
  if (!process.env.AUTH_OIDC_EMBEDDED_KEY)
    process.env.AUTH_OIDC_EMBEDDED_KEY = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
  return process.env.AUTH_OIDC_EMBEDDED_KEY;
}

export function testEnvironment(): Record<string, string> {
  return {
    AUTH_OIDC_EMBEDDED_KEY: embeddedProviderKey(),
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${TEST_DATABASE_NAME}`,
    DATABASE_POOL_MAX: '10',
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS ?? `127.0.0.1:${TEST_TEMPORAL_PORT}`,
    TEMPORAL_TASK_QUEUE: `test-${process.pid}-${Date.now()}`,
    TRUST_PROXY: '1',
    // Test fixtures mint `role: admin` JWTs for operators (refused in production: docs/decisions/security.md).
    AUTH_TRUST_ROLE_CLAIM: '1',
    WEBHOOK_ALLOW_PRIVATE: '1',
    WEBHOOK_RETRY_DELAYS_MS: '100,200,300',
    WEBHOOK_TIMEOUT_MS: '2000',
    SPECTATOR_DELAY_MS: '1500',
    // The worker's relay sweep is off so that tests of the stream route's own overdue path stay
    // deterministic; the relay-recovery test runs the same sweeper in its own process.
    SPECTATOR_RELAY_SWEEP_MS: '0',
    SUBMISSION_SWEEP_AFTER_MS: '1000',
    // The arena's minute (matchmaking rounds, bout lengths) is 1 s in tests; its poll 200 ms.
    ARENA_MINUTE_MS: '1000',
    ARENA_POLL_MS: '200',
    // The match sweeper (deadlines, workflows gone) looks every second.
    MATCH_SWEEP_MS: '1000',
  };
}
