import pino, { type Logger } from 'pino';

/**
 * Credentials never reach the logs: request logs carry no headers or bodies, and these paths
 * are redacted should an object carrying them ever be logged.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-service-api-key"]',
  'headers.authorization',
  'headers["x-service-api-key"]',
  'authorization',
  'token',
  'key',
  'secret',
  'jwt',
  '*.token',
  '*.key',
  '*.secret',
  '*.jwt',
  '*.authorization',
];

export function createLogger(level: string, name = 'challenge-service', destination?: pino.DestinationStream): Logger {
  return pino({ name, level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, destination);
}
