import { ServiceError, type ErrorCode } from '../errors';

/** How each error code reads over HTTP (one envelope; the codes themselves live in src/errors.ts). */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  VALIDATION_ERROR: 400,
  INVALID_JSON: 400,
  RATE_LIMITED: 429,
  DB_ERROR: 500,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  CONFLICT: 409,
  INVALID_EVENT: 400,
  WEBHOOK_INACTIVE: 400,
  CHALLENGE_NOT_ENTERABLE: 400,
  SESSION_CLOSED: 400,
  SUBMISSION_LIMIT_REACHED: 400,
  TOKEN_LIMIT_REACHED: 400,
  WEBHOOK_LIMIT_REACHED: 400,
  BREAKDOWN_NOT_AVAILABLE: 404,
  TOKEN_ALREADY_REVOKED: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  GONE: 410,
  PRECONDITION_FAILED: 412,
  REQUEST_TIMEOUT: 408,
};

/**
 * A failure only HTTP produces: it carries response headers (Retry-After, X-RateLimit-*) or a
 * status of its own (a 4xx Koa raised). Rules elsewhere throw plain ServiceErrors.
 */
export class ApiError extends ServiceError {
  readonly status: number;
  constructor(
    code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
    status?: number,
  ) {
    super(code, message);
    this.name = 'ApiError';
    this.status = status ?? HTTP_STATUS[code];
  }
}

export const httpStatusOf = (err: ServiceError): number =>
  err instanceof ApiError ? err.status : HTTP_STATUS[err.code];

/** Turns a zod error into one readable sentence naming each offending field. */
export function describeZodIssues(
  issues: { path: (string | number)[]; message: string }[],
  where?: string,
): string {
  return issues
    .slice(0, 10)
    .map((i) => {
      const field = [where, ...i.path].filter((p) => p !== undefined && p !== '').join('.');
      return field ? `${field}: ${i.message}` : i.message;
    })
    .join('; ');
}
