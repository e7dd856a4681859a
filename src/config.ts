import { createPrivateKey } from 'node:crypto';
import { isIP } from 'node:net';
import { z } from 'zod';

/** Milliseconds list such as "1000,5000,30000". */
const boolFlag = z
  .enum(['0', '1', 'true', 'false'])
  .default('0')
  .transform((v) => v === '1' || v === 'true');

/** Comma-separated list; empty entries dropped. */
const commaList = z.string().transform((s) =>
  s
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== ''),
);

/**
 * Settings of the production hardening (issue 11, docs/decisions/security.md "Production
 * settings"), kept together so they read as one policy.
 */
const productionHardeningSettings = {
  /**
   * How many proxies in front of the API append to X-Forwarded-For. The client address is the
   * entry this many places from the right (the rightmost one no trusted proxy wrote); everything
   * left of it is whatever the client sent. Required with TRUST_PROXY in production.
   */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(1).max(10).optional(),
  /** Subjects (`sub`) of session JWTs that are operators. */
  AUTH_OPERATOR_SUBJECTS: commaList.optional(),
  /**
   * `claim=value`: a session JWT is an operator when its namespaced claim (a URL or URN, e.g.
   * `https://example.com/roles=operator`) equals the value or is an array containing it.
   */
  AUTH_OPERATOR_CLAIM: z
    .string()
    .regex(
      /^[a-z][a-z0-9+.-]*:[^=\s]+=[^=\s]+$/i,
      'claim=value, with a namespaced claim name (a URL or URN, e.g. https://example.com/roles=operator)',
    )
    .optional(),
  /** Take the unnamespaced `role: admin` claim as operator (dev CLI and tests only; refused in production). */
  AUTH_TRUST_ROLE_CLAIM: boolFlag,
  /** Bearer credential required on GET /metrics. */
  METRICS_TOKEN: z.string().min(16).optional(),
  /** Serve /metrics on its own listener (METRICS_HOST:METRICS_PORT) instead of the API's port. */
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  METRICS_HOST: z.string().default('127.0.0.1'),
  /** Open spectator streams (GET /challenges/:id/live) per client IP, per API process. */
  SPECTATOR_STREAMS_PER_IP: z.coerce.number().int().min(1).max(10_000).default(20),
  /**
   * Exact origins (`http://10.0.0.5:8080`, IP literal and port) of internal webhook receivers the
   * operator names; they skip the address checks of the SSRF guard. Unlike WEBHOOK_ALLOW_PRIVATE
   * this admits no other port or host, so it is allowed in production.
   */
  WEBHOOK_INTERNAL_ORIGINS: commaList
    .pipe(
      z.array(
        z
          .string()
          .refine(
            isIpLiteralOrigin,
            'each entry must be an origin with an IP literal host, e.g. http://127.0.0.1:8080',
          ),
      ),
    )
    .default(''),
};

function isIpLiteralOrigin(entry: string): boolean {
  try {
    const url = new URL(entry);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    return url.origin === entry && isIP(host) !== 0;
  } catch {
    return false;
  }
}

/**
 * People signing in on the web (issue 21, docs/decisions/web.md): an OpenID Connect provider
 * (all three or none), or in development the embedded provider mounted under /oidc.
 */
const webSignInSettings = {
  AUTH_OIDC_ISSUER: z.string().url().optional(),
  AUTH_OIDC_CLIENT_ID: z.string().min(1).max(500).optional(),
  AUTH_OIDC_CLIENT_SECRET: z.string().min(1).max(2000).optional(),
  /**
   * The embedded OpenID provider (anyone signs in as any name). Default: on in development and
   * tests when no AUTH_OIDC_ISSUER is set, off in production (where setting it is refused).
   */
  AUTH_OIDC_EMBEDDED: z.enum(['0', '1', 'true', 'false']).optional(),
  /**
   * The embedded provider's RSA signing key (PEM). Unset: each process generates one when it
   * starts. Set: API processes of one development setup serve one key set (an ID token one
   * signed verifies at another), and a test run makes one key instead of one per test server.
   */
  AUTH_OIDC_EMBEDDED_KEY: z
    .string()
    .max(20_000)
    .refine(isRsaPrivateKey, 'AUTH_OIDC_EMBEDDED_KEY must be an RSA private key in PEM')
    .optional(),
  /** A web session ends after this long without a request… */
  WEB_SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).max(10_080).default(120),
  /** …and this long after sign-in, whatever happens. */
  WEB_SESSION_ABSOLUTE_HOURS: z.coerce.number().int().min(1).max(720).default(24),
};

function isRsaPrivateKey(pem: string): boolean {
  try {
    return createPrivateKey(pem).asymmetricKeyType === 'rsa';
  } catch {
    return false;
  }
}

/** How people sign in on the web: off, the configured provider, or the embedded one (development). */
export type WebSignInMode =
  | { kind: 'off' }
  | { kind: 'oidc'; issuer: string; clientId: string; clientSecret: string }
  | { kind: 'embedded' };

export function webSignInMode(
  env: Pick<
    Config,
    'NODE_ENV' | 'AUTH_OIDC_ISSUER' | 'AUTH_OIDC_CLIENT_ID' | 'AUTH_OIDC_CLIENT_SECRET' | 'AUTH_OIDC_EMBEDDED'
  >,
): WebSignInMode {
  if (env.AUTH_OIDC_ISSUER && env.AUTH_OIDC_CLIENT_ID && env.AUTH_OIDC_CLIENT_SECRET)
    return {
      kind: 'oidc',
      issuer: env.AUTH_OIDC_ISSUER,
      clientId: env.AUTH_OIDC_CLIENT_ID,
      clientSecret: env.AUTH_OIDC_CLIENT_SECRET,
    };
  const embedded = env.AUTH_OIDC_EMBEDDED;
  if (embedded === '1' || embedded === 'true') return { kind: 'embedded' };
  if (embedded === undefined && env.NODE_ENV !== 'production') return { kind: 'embedded' };
  return { kind: 'off' };
}

/** Refusals of the sign-in settings in every environment (partial settings are a mistake anywhere). */
function refuseInconsistentSignIn(env: Config, ctx: z.RefinementCtx): void {
  const set = (['AUTH_OIDC_ISSUER', 'AUTH_OIDC_CLIENT_ID', 'AUTH_OIDC_CLIENT_SECRET'] as const).filter(
    (k) => env[k] !== undefined,
  );
  if (set.length > 0 && set.length < 3) {
    ctx.addIssue({
      code: 'custom',
      path: ['AUTH_OIDC_ISSUER'],
      message: `OpenID Connect sign-in needs AUTH_OIDC_ISSUER, AUTH_OIDC_CLIENT_ID and AUTH_OIDC_CLIENT_SECRET together (only ${set.join(', ')} set)`,
    });
  }
  if (set.length === 3 && (env.AUTH_OIDC_EMBEDDED === '1' || env.AUTH_OIDC_EMBEDDED === 'true')) {
    ctx.addIssue({
      code: 'custom',
      path: ['AUTH_OIDC_EMBEDDED'],
      message: 'AUTH_OIDC_EMBEDDED and AUTH_OIDC_ISSUER name two providers; set one',
    });
  }
  if (
    env.AUTH_OIDC_ISSUER &&
    env.AUTH_JWT_ISSUER &&
    env.AUTH_OIDC_ISSUER.replace(/\/$/, '') !== env.AUTH_JWT_ISSUER.replace(/\/$/, '')
  ) {
    ctx.addIssue({
      code: 'custom',
      path: ['AUTH_OIDC_ISSUER'],
      message:
        'AUTH_OIDC_ISSUER and AUTH_JWT_ISSUER differ: the web and the API must trust the same identity provider',
    });
  }
}

/** Production refusals of the hardening settings; each names what to set instead. */
function refuseUnsafeInProduction(env: Config, ctx: z.RefinementCtx): void {
  const refuse = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (env.WEBHOOK_ALLOW_PRIVATE) {
    refuse(
      'WEBHOOK_ALLOW_PRIVATE',
      'loopback webhook targets are refused in production (name internal receivers in WEBHOOK_INTERNAL_ORIGINS)',
    );
  }
  if (env.AUTH_JWKS_URL && (!env.AUTH_JWT_ISSUER || !env.AUTH_JWT_AUDIENCE)) {
    refuse('AUTH_JWKS_URL', 'a JWKS needs AUTH_JWT_ISSUER and AUTH_JWT_AUDIENCE in production');
  }
  if (env.AUTH_TRUST_ROLE_CLAIM) {
    refuse(
      'AUTH_TRUST_ROLE_CLAIM',
      'the role claim is refused in production; name operators with AUTH_OPERATOR_SUBJECTS or AUTH_OPERATOR_CLAIM',
    );
  }
  if (!databaseUrlHasPassword(env.DATABASE_URL)) {
    refuse('DATABASE_URL', 'a database URL without a password is refused in production');
  }
  if (!env.METRICS_TOKEN && env.METRICS_PORT === undefined) {
    refuse(
      'METRICS_TOKEN',
      '/metrics needs its own credential (METRICS_TOKEN) or listener (METRICS_PORT) in production',
    );
  }
  if (!env.METRICS_TOKEN && env.METRICS_PORT !== undefined && !isLoopbackHost(env.METRICS_HOST)) {
    refuse(
      'METRICS_HOST',
      `/metrics on ${env.METRICS_HOST} is reachable beyond this machine: set METRICS_TOKEN, or a loopback METRICS_HOST (127.0.0.1), in production`,
    );
  }
  if (env.AUTH_OIDC_EMBEDDED === '1' || env.AUTH_OIDC_EMBEDDED === 'true') {
    refuse(
      'AUTH_OIDC_EMBEDDED',
      'the embedded OpenID provider lets anyone sign in as any name; refused in production (set AUTH_OIDC_ISSUER, AUTH_OIDC_CLIENT_ID, AUTH_OIDC_CLIENT_SECRET)',
    );
  }
  if (env.AUTH_OIDC_ISSUER && !env.PUBLIC_BASE_URL) {
    refuse(
      'PUBLIC_BASE_URL',
      'web sign-in needs PUBLIC_BASE_URL in production (the redirect URI and the origin forms are checked against)',
    );
  }
  if (env.TRUST_PROXY && env.TRUST_PROXY_HOPS === undefined) {
    refuse(
      'TRUST_PROXY_HOPS',
      'TRUST_PROXY needs the number of trusted proxies (TRUST_PROXY_HOPS) in production',
    );
  }
  if (env.ARENA_MINUTE_MS !== 60_000) {
    refuse('ARENA_MINUTE_MS', 'the arena minute is shortened for tests only; refused in production');
  }
}

/** localhost, 127.0.0.0/8, ::1 (and 127.x mapped into IPv6): only this machine can connect. */
function isLoopbackHost(host: string): boolean {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  if (bare === 'localhost' || bare === '::1') return true;
  const v4 = bare.replace(/^::ffff:/, '');
  return isIP(v4) === 4 && v4.startsWith('127.');
}

function databaseUrlHasPassword(databaseUrl: string): boolean {
  try {
    return new URL(databaseUrl).password !== '';
  } catch {
    return false;
  }
}

const envSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    HOST: z.string().default('127.0.0.1'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    PUBLIC_BASE_URL: z.string().url().optional(),
    /** Trust X-Forwarded-For (behind a proxy; tests use it to give each suite its own client IP). */
    TRUST_PROXY: boolFlag,
    ...productionHardeningSettings,
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
    /**
     * A workflow bundle built beforehand (`bundleWorkflowCode`), loaded by the worker instead of
     * bundling the registry at start (2-3 s of CPU each start): test harnesses that start and
     * SIGKILL many workers build it once. Unset: the built tree's bundle, else bundled at start.
     */
    TEMPORAL_WORKFLOW_BUNDLE: z.string().optional(),
    /**
     * The Temporal Web UI's base URL (e.g. http://localhost:8233): the operators' console links each
     * submission to its workflow there. Unset: no link is shown.
     */
    TEMPORAL_UI_URL: z
      .string()
      .url()
      .refine((u) => /^https?:\/\//i.test(u), 'must be an http(s) URL')
      .optional(),

    AUTH_JWT_SECRET: z.string().min(16).default('dev-secret-change-me'),
    AUTH_JWKS_URL: z.string().url().optional(),
    /**
     * How long fetching the identity provider's JWKS may take (connect, first byte, and each later
     * silence) before the request is answered 503 SERVICE_UNAVAILABLE (jose's default: 5 s).
     */
    AUTH_JWKS_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(5_000),
    AUTH_JWT_ISSUER: z.string().optional(),
    AUTH_JWT_AUDIENCE: z.string().optional(),

    ...webSignInSettings,

    /** Key that encrypts webhook secrets at rest. */
    WEBHOOK_SECRET_KEY: z.string().min(16).default('dev-webhook-key-change-me'),
    WEBHOOK_RETRY_DELAYS_MS: z
      .string()
      .default('1000,5000,30000')
      .transform((csv, ctx) => {
        try {
          return parseRetryDelays(csv);
        } catch (err) {
          ctx.addIssue({ code: z.ZodIssueCode.custom, message: (err as Error).message });
          return z.NEVER;
        }
      }),
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
    WEBHOOK_ALLOW_PRIVATE: boolFlag,
    /**
     * Deliveries created by one dispatch pass have their first attempts made together, in workflows of
     * up to this many (1: every delivery its own workflow from its first attempt).
     */
    WEBHOOK_FIRST_ATTEMPT_BATCH_MAX: z.coerce.number().int().min(1).max(200).default(50),

    SPECTATOR_DELAY_MS: z.coerce.number().int().min(0).default(30_000),
    /**
     * The relay's timing around the delay (src/domain/connector/contract.ts): its release step holds
     * this long releasing what falls due, and its timer wakes this long before the next event is
     * due. Shorter values cost only more release transactions; tests shorten them so a real timer
     * is proved with a short delay.
     */
    SPECTATOR_RELAY_HOLD_MS: z.coerce.number().int().min(50).max(60_000).default(2_000),
    SPECTATOR_RELAY_TIMER_LEAD_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
    /**
     * How often each worker looks for challenges whose unreleased events are overdue (their relay is
     * gone) and restarts their relay; 0 turns the sweep off.
     */
    SPECTATOR_RELAY_SWEEP_MS: z.coerce.number().int().min(0).default(10_000),
    /** Heartbeat comment interval of the spectator Server-Sent Events stream. */
    SPECTATOR_SSE_HEARTBEAT_MS: z.coerce.number().int().min(100).default(15_000),
    /** A spectator stream whose client takes nothing for this long is dropped (it resumes with Last-Event-ID). */
    SPECTATOR_STALL_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
    /** A request body not received within this → 408 REQUEST_TIMEOUT, the connection closed (DESIGN). */
    REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
    /**
     * How long the API keeps an idle keep-alive connection open. Node's own 5 s races the clients
     * that reuse connections (fetch keeps one ~4 s; load balancers and agents' HTTP pools 60 s):
     * when the server closes just as the client sends, the request fails with "other side closed".
     * Longer than the clients', so the client always closes first (docs/decisions/api.md).
     */
    HTTP_KEEP_ALIVE_MS: z.coerce.number().int().min(1_000).max(600_000).default(65_000),
    AGENT_ONLINE_WINDOW_MS: z.coerce.number().int().positive().default(90_000),
    /**
     * The arena's minute (matchmaking every_minutes, a bout's time_limit_minutes): 60 000 ms.
     * Tests shorten it; production refuses anything else.
     */
    ARENA_MINUTE_MS: z.coerce.number().int().min(100).default(60_000),
    /** How often a match's workflow looks at its bout (an early end, judging after the end). */
    ARENA_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(5_000),
    /**
     * How often each worker looks for running matches past their deadline or whose workflow is gone
     * (and voids them); 0 turns the sweep off.
     */
    MATCH_SWEEP_MS: z.coerce.number().int().min(0).default(30_000),
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
    /** The rate-limit keys' prefix in Redis (`<prefix>:<category>:<subject>`), e.g. for a shared Redis. */
    RATE_LIMIT_REDIS_PREFIX: z.string().min(1).max(100).default('rlw'),
    /** Disable rate limiting (benchmarks only; never in production). */
    RATE_LIMIT_DISABLED: boolFlag,

    /**
     * The wall around submitted code (`tests` judge): `bwrap` (bubblewrap namespaces, rlimits,
     * cgroups; the worker refuses to start without it) or, in development only, `unsafe-process`
     * (plain child processes, a warning per judging).
     */
    JUDGE_SANDBOX: z.enum(['bwrap', 'unsafe-process']).default('bwrap'),
    /** bwrap binary (default: `bwrap` on PATH). */
    JUDGE_BWRAP_PATH: z.string().optional(),
    /** Sandboxed processes per worker at once, and the judging activities it takes (default: per cores and memory). */
    JUDGE_SLOTS: z.coerce.number().int().min(1).max(32).optional(),
    /** First of the uids sandboxes run under when the worker is root (a locked block of 64 per worker). */
    JUDGE_SANDBOX_UID_BASE: z.coerce.number().int().min(1000).max(4_000_000_000).default(61_000),
    /** Folder of the uid block locks: shared by every worker of a host (a host volume across containers). */
    JUDGE_UID_LOCK_DIR: z.string().default('/run/judge-sandbox'),
    /** cgroup v2 group under which per-run groups are made (default: a child of the worker's own). */
    JUDGE_CGROUP_PARENT: z.string().optional(),
    /**
     * Sandbox slots one user's agents may hold at once across all workers (the judging queue's cap;
     * a `tests` judging holds 1, a `program` judging up to JUDGE_PROGRAM_SLOTS); the rest wait their turn.
     */
    JUDGE_MAX_IN_FLIGHT_PER_USER: z.coerce.number().int().min(1).max(10_000).default(4),
    /** Sandbox slots one agent's judgings may hold at once across all workers. */
    JUDGE_MAX_IN_FLIGHT_PER_AGENT: z.coerce.number().int().min(1).max(10_000).default(2),
    /**
     * The judging queue's capacity: sandbox slots of all workers together. Default: the sum of the
     * slots the live workers report (each worker's JUDGE_SLOTS or its default), so adding a worker
     * adds its slots. Set it to hold judging below what the workers have.
     */
    JUDGE_QUEUE_SLOTS: z.coerce.number().int().min(1).max(10_000).optional(),
    /** Slots (tests run at once) a `program` judging asks the queue for; never more than its tests. */
    JUDGE_PROGRAM_SLOTS: z.coerce.number().int().min(1).max(32).default(2),
    /** How often work waiting in the judging queue looks for its turn (and runs a pass of the queue). */
    JUDGE_QUEUE_POLL_MS: z.coerce.number().int().min(20).max(10_000).default(250),
  })
  .superRefine((env, ctx) => {
    refuseInconsistentSignIn(env, ctx);
    // The relay's timer wakes early by the lead and its release step's hold waits the rest.
    if (env.SPECTATOR_RELAY_TIMER_LEAD_MS > env.SPECTATOR_RELAY_HOLD_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['SPECTATOR_RELAY_TIMER_LEAD_MS'],
        message: 'must not exceed SPECTATOR_RELAY_HOLD_MS (the hold covers what the timer wakes early)',
      });
    }
    if (env.NODE_ENV === 'production') {
      if (env.AUTH_JWT_SECRET === 'dev-secret-change-me' && !env.AUTH_JWKS_URL) {
        ctx.addIssue({
          code: 'custom',
          path: ['AUTH_JWT_SECRET'],
          message: 'the dev JWT secret is refused in production',
        });
      }
      if (env.WEBHOOK_SECRET_KEY === 'dev-webhook-key-change-me') {
        ctx.addIssue({
          code: 'custom',
          path: ['WEBHOOK_SECRET_KEY'],
          message: 'the dev webhook key is refused in production',
        });
      }
      if (env.RATE_LIMIT_DISABLED) {
        ctx.addIssue({
          code: 'custom',
          path: ['RATE_LIMIT_DISABLED'],
          message: 'rate limits cannot be disabled in production',
        });
      }
      if (env.JUDGE_SANDBOX === 'unsafe-process') {
        ctx.addIssue({
          code: 'custom',
          path: ['JUDGE_SANDBOX'],
          message: 'unsafe-process is refused in production: submitted code would run without the OS sandbox',
        });
      }
      refuseUnsafeInProduction(env, ctx);
    }
  });

export type Config = z.infer<typeof envSchema>;

/** Parses the environment once; a bad value stops the process at start with every problem listed. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable (`FOO=` in an env file, `${FOO:-}` in docker-compose) means "not set".
  const parsed = envSchema.safeParse(
    Object.fromEntries(Object.entries(env).filter(([, value]) => value !== '')),
  );
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

/** Bounds of a configured webhook retry schedule (WEBHOOK_RETRY_DELAYS_MS). */
const MAX_RETRIES = 20;
const MAX_DELAY_MS = 24 * 60 * 60 * 1000;

/**
 * Parse a configured schedule such as "1000,5000,30000" (tests use e.g. "50,50,50"). Whitespace around
 * entries is ignored. Throws on anything else: a blank value, non-integers, negative numbers, more than
 * 20 retries or a delay over 24 h, so a typo in configuration fails at start instead of silently
 * changing delivery guarantees.
 */
export function parseRetryDelays(csv: string): number[] {
  const entries = csv.split(',').map((entry) => entry.trim());
  if (entries.length === 1 && entries[0] === '') {
    throw new RangeError('retry delays must list at least one delay in milliseconds');
  }
  if (entries.length > MAX_RETRIES) {
    throw new RangeError(`at most ${MAX_RETRIES} retry delays are allowed, got ${entries.length}`);
  }
  return entries.map((entry) => {
    if (!/^\d+$/.test(entry)) {
      throw new RangeError(`retry delay ${JSON.stringify(entry)} is not a whole number of milliseconds`);
    }
    const delay = Number(entry);
    if (delay > MAX_DELAY_MS) throw new RangeError(`retry delay ${delay} ms is longer than 24 h`);
    return delay;
  });
}
