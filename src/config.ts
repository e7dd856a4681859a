import { z } from 'zod';

/** Milliseconds list such as "1000,5000,30000". */
const msList = z
  .string()
  .regex(/^\d+(,\d+)*$/, 'comma-separated milliseconds')
  .transform((s) => s.split(',').map(Number));

const boolFlag = z
  .enum(['0', '1', 'true', 'false'])
  .default('0')
  .transform((v) => v === '1' || v === 'true');

const envSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    HOST: z.string().default('127.0.0.1'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    PUBLIC_BASE_URL: z.string().url().optional(),
    /** Trust X-Forwarded-For (behind a proxy; tests use it to give each suite its own client IP). */
    TRUST_PROXY: boolFlag,
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

    DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/challenges'),
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(20),

    TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
    TEMPORAL_NAMESPACE: z.string().default('default'),
    TEMPORAL_TASK_QUEUE: z.string().default('challenges'),
    TEMPORAL_TLS_CERT_PATH: z.string().optional(),
    TEMPORAL_TLS_KEY_PATH: z.string().optional(),
    TEMPORAL_TLS_CA_PATH: z.string().optional(),
    TEMPORAL_API_KEY: z.string().optional(),

    AUTH_JWT_SECRET: z.string().min(16).default('dev-secret-change-me'),
    AUTH_JWKS_URL: z.string().url().optional(),
    /**
     * How long fetching the identity provider's JWKS may take (connect, first byte, and each later
     * silence) before the request is answered 503 SERVICE_UNAVAILABLE (jose's default: 5 s).
     */
    AUTH_JWKS_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(5_000),
    AUTH_JWT_ISSUER: z.string().optional(),
    AUTH_JWT_AUDIENCE: z.string().optional(),

    /** Key that encrypts webhook secrets at rest. */
    WEBHOOK_SECRET_KEY: z.string().min(16).default('dev-webhook-key-change-me'),
    WEBHOOK_RETRY_DELAYS_MS: msList.default('1000,5000,30000'),
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
    WEBHOOK_ALLOW_PRIVATE: boolFlag,
    /**
     * Deliveries created by one dispatch pass have their first attempts made together, in workflows of
     * up to this many (1: every delivery its own workflow from its first attempt).
     */
    WEBHOOK_FIRST_ATTEMPT_BATCH_MAX: z.coerce.number().int().min(1).max(200).default(50),

    SPECTATOR_DELAY_MS: z.coerce.number().int().min(0).default(30_000),
    /**
     * How often each worker looks for challenges whose unreleased events are overdue (their relay is
     * gone) and restarts their relay; 0 turns the sweep off.
     */
    SPECTATOR_RELAY_SWEEP_MS: z.coerce.number().int().min(0).default(10_000),
    /** Heartbeat comment interval of the spectator Server-Sent Events stream. */
    SPECTATOR_SSE_HEARTBEAT_MS: z.coerce.number().int().min(100).default(15_000),
    /** A spectator stream whose client takes nothing for this long is dropped (it resumes with Last-Event-ID). */
    SPECTATOR_STALL_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
    AGENT_ONLINE_WINDOW_MS: z.coerce.number().int().positive().default(90_000),
    /** A received submission whose workflow has not started after this long is started by the sweeper. */
    SUBMISSION_SWEEP_AFTER_MS: z.coerce.number().int().positive().default(10_000),
    /**
     * How long an API process may reuse a credential row it read (revocations reach it at once by
     * LISTEN/NOTIFY; this bounds a missed notification); 0 reads every request's credential afresh.
     */
    CREDENTIAL_CACHE_TTL_MS: z.coerce.number().int().min(0).max(300_000).default(10_000),
    /**
     * Optional Redis (redis://host:port) for the rate-limit counters; without it they live in
     * PostgreSQL (the default: the README's two commands need nothing else).
     */
    REDIS_URL: z.string().url().optional(),
    /** Disable rate limiting (benchmarks only; never in production). */
    RATE_LIMIT_DISABLED: boolFlag,
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === 'production') {
      if (env.AUTH_JWT_SECRET === 'dev-secret-change-me' && !env.AUTH_JWKS_URL) {
        ctx.addIssue({ code: 'custom', path: ['AUTH_JWT_SECRET'], message: 'the dev JWT secret is refused in production' });
      }
      if (env.WEBHOOK_SECRET_KEY === 'dev-webhook-key-change-me') {
        ctx.addIssue({ code: 'custom', path: ['WEBHOOK_SECRET_KEY'], message: 'the dev webhook key is refused in production' });
      }
      if (env.RATE_LIMIT_DISABLED) {
        ctx.addIssue({ code: 'custom', path: ['RATE_LIMIT_DISABLED'], message: 'rate limits cannot be disabled in production' });
      }
    }
  });

export type Config = z.infer<typeof envSchema>;

/** Parses the environment once; a bad value stops the process at start with every problem listed. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable (`FOO=` in an env file, `${FOO:-}` in docker-compose) means "not set".
  const parsed = envSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, value]) => value !== '')));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid configuration: ${problems}`);
  }
  return parsed.data;
}

let cached: Config | undefined;
export function getConfig(): Config {
  cached ??= loadConfig();
  return cached;
}
