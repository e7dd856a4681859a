/**
 * One error module, one envelope. Every failure a route can produce is an ApiError with a
 * spec code; anything else is mapped to 500 with a generic message (never a stack trace).
 */
export const ERROR_CODES = {
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
  // DESIGN.md's codes for conditions the spec names without a code.
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
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
    status?: number,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status ?? ERROR_CODES[code];
  }
}

export const unauthorized = (message = 'missing or invalid credentials') => new ApiError('UNAUTHORIZED', message);
export const forbidden = (message = 'the credential lacks the required scope') => new ApiError('FORBIDDEN', message);
export const notFound = (what = 'resource') => new ApiError('NOT_FOUND', `${what} not found`);
export const validationError = (message: string) => new ApiError('VALIDATION_ERROR', message);
export const conflict = (message: string) => new ApiError('CONFLICT', message);

/** Turns a zod error into one readable sentence naming each offending field. */
export function describeZodIssues(issues: { path: (string | number)[]; message: string }[], where?: string): string {
  return issues
    .slice(0, 10)
    .map((i) => {
      const field = [where, ...i.path].filter((p) => p !== undefined && p !== '').join('.');
      return field ? `${field}: ${i.message}` : i.message;
    })
    .join('; ');
}
