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
  // A write conditioned on a version (If-Match) that is no longer current.
  'PRECONDITION_FAILED',
  'REQUEST_TIMEOUT',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /**
     * A VALIDATION_ERROR about named input fields: field → what is wrong with it. A form shows each
     * message next to its field (src/api/pages/challenges/form.ts) instead of parsing the message.
     */
    readonly fields?: Readonly<Record<string, string>>,
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
/**
 * A VALIDATION_ERROR naming its fields: the message reads as the API's schema errors do
 * ("body.ends_at: …; body.x: …") and `fields` carries the same, structured, for a form.
 */
export const invalidFields = (fields: Record<string, string>) =>
  new ServiceError(
    'VALIDATION_ERROR',
    Object.entries(fields)
      .map(([field, message]) => `body.${field}: ${message}`)
      .join('; '),
    fields,
  );
export const conflict = (message: string) => new ServiceError('CONFLICT', message);
