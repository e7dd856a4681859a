import pino, { type Logger } from 'pino';

/** Field names whose values never reach the logs, at any depth (configuration keys included). */
const SENSITIVE_FIELDS = [
  'authorization',
  'token',
  'key',
  'secret',
  'jwt',
  'password',
  'api_key',
  'apiKey',
  // Should a configuration object ever be logged.
  'AUTH_JWT_SECRET',
  'WEBHOOK_SECRET_KEY',
  'TEMPORAL_API_KEY',
];

/**
 * Credentials never reach the logs: request logs carry no headers or bodies, and these paths
 * are redacted should an object carrying them ever be logged.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-service-api-key"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-service-api-key"]',
  'headers.cookie',
  '*.headers.authorization',
  '*.headers["x-service-api-key"]',
  ...SENSITIVE_FIELDS.flatMap((field) => [field, `*.${field}`]),
];

/**
 * Second line of defence, for credentials embedded in free text (an error message, a URL):
 * API tokens, connector keys, JWTs and bearer headers are replaced wherever they appear.
 */
const SECRET_PATTERNS: RegExp[] = [
  /svc_sk_[A-Za-z0-9_-]{12,}/g,
  /\baa_[A-Za-z0-9_-]{16,}/g,
  /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g,
  /\b(Bearer)\s+[^\s"',;]+/gi,
];

export function scrubSecrets(text: string): string {
  let out = text;
  for (const pattern of SECRET_PATTERNS) {
    out = out.replace(pattern, (_match, bearer?: string) =>
      typeof bearer === 'string' ? `${bearer} [redacted]` : '[redacted]',
    );
  }
  return out;
}

/** Field names whose values are censored at any depth (the redact paths above stop at one level). */
const SENSITIVE_KEYS = new Set(
  [...SENSITIVE_FIELDS, 'x-service-api-key', 'cookie'].map((field) => field.toLowerCase()),
);

/**
 * Copies a log object with sensitive fields censored and every string scrubbed; never mutates
 * it. Errors stay errors (same prototype, so pino's serializer still names their type), with
 * their message, stack and extra fields scrubbed.
 */
function scrubValue(value: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (typeof value === 'string') return scrubSecrets(value);
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (value instanceof Date || Buffer.isBuffer(value)) return value;
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, depth + 1, seen));
  const isError = value instanceof Error;
  const out = (isError ? Object.create(Object.getPrototypeOf(value)) : {}) as Record<string, unknown>;
  const keys = isError ? Object.getOwnPropertyNames(value) : Object.keys(value);
  for (const k of keys) {
    const v = (value as Record<string, unknown>)[k];
    out[k] =
      SENSITIVE_KEYS.has(k.toLowerCase()) && v !== undefined && v !== null
        ? '[redacted]'
        : scrubValue(v, depth + 1, seen);
  }
  return out;
}

/**
 * Standard output for a server: lines are gathered and written together (one write(2) per
 * BUFFERED_BYTES, or every FLUSH_EVERY_MS when quieter), still synchronously on the event loop,
 * instead of one write(2) per line. A server logs a line per request, and a write per request was
 * on the request path (docs/benchmarks.md); writing asynchronously instead cost more CPU (a thread
 * pool hop per line). What is gathered is written at exit; a line waits at most FLUSH_EVERY_MS.
 */
const BUFFERED_BYTES = 8192;
const FLUSH_EVERY_MS = 200;
export function bufferedStdout(): pino.DestinationStream {
  const stream = pino.destination({
    dest: 1,
    sync: true,
    minLength: BUFFERED_BYTES,
    periodicFlush: FLUSH_EVERY_MS,
  });
  process.once('exit', () => {
    try {
      stream.flushSync();
    } catch {
      // Standard output already gone: nothing to keep.
    }
  });
  return stream;
}

export function createLogger(
  level: string,
  name = 'challenge-service',
  destination?: pino.DestinationStream,
): Logger {
  return pino(
    {
      name,
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      formatters: { log: (obj) => scrubValue(obj, 0, new WeakSet()) as Record<string, unknown> },
      hooks: {
        logMethod(args, method) {
          // Message strings, their format arguments, and errors logged bare (`log.error(err)`
          // uses err.message as the message).
          const scrubbed = args.map((a) =>
            typeof a === 'string'
              ? scrubSecrets(a)
              : a instanceof Error
                ? scrubValue(a, 0, new WeakSet())
                : a,
          );
          return method.apply(this, scrubbed as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
}
