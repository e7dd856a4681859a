/**
 * The service's one error vocabulary, shared by the domain, the worker and the API. A rule that
 * refuses something throws a ServiceError with one of these codes; how a code reads over HTTP
 * (its status, headers, envelope) is the API's business (src/api/errors.ts). No HTTP in here.
 */
export const ERROR_CODES = [
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'VALIDATION_ERROR',
  'INVALID_JSON',
  'RATE_LIMITED',
  'DB_ERROR',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
  'CONFLICT',
  'INVALID_EVENT',
  'WEBHOOK_INACTIVE',
  // DESIGN.md's codes for conditions the spec names without a code.
  'CHALLENGE_NOT_ENTERABLE',
  'SESSION_CLOSED',
  'SUBMISSION_LIMIT_REACHED',
  'TOKEN_LIMIT_REACHED',
  'WEBHOOK_LIMIT_REACHED',
  'BREAKDOWN_NOT_AVAILABLE',
  'TOKEN_ALREADY_REVOKED',
  'IDEMPOTENCY_KEY_REUSED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'GONE',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

export const unauthorized = (message = 'missing or invalid credentials') =>
  new ServiceError('UNAUTHORIZED', message);
export const forbidden = (message = 'the credential lacks the required scope') =>
  new ServiceError('FORBIDDEN', message);
export const notFound = (what = 'resource') => new ServiceError('NOT_FOUND', `${what} not found`);
export const validationError = (message: string) => new ServiceError('VALIDATION_ERROR', message);
export const conflict = (message: string) => new ServiceError('CONFLICT', message);
