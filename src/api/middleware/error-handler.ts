import type Koa from 'koa';
import type { Logger } from 'pino';
import { ApiError, httpStatusOf } from '../errors';
import { ServiceError, type ErrorCode } from '../../errors';
import { renderErrorPage } from '../../web/error-page';

/** Errors thrown by Koa itself or by the body parser carry an HTTP status and sometimes a type. */
interface HttpishError {
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
  code?: string;
}

/** Seconds a client is asked to wait when the database refuses connections. */
export const DATABASE_RETRY_AFTER_SEC = 5;

/**
 * PostgreSQL refusing connections (DESIGN: 503 with Retry-After, not a 500): class 53
 * (insufficient resources: 53300 too_many_connections), 57P01–57P03 (shutting down, cannot
 * connect now), class 08 (connection exceptions), the pool's own connect timeout, and a refused
 * or reset socket.
 */
function databaseRefusing(e: HttpishError, err: unknown): boolean {
  const code = typeof e.code === 'string' ? e.code : '';
  if (/^53[0-9A-Z]{3}$/.test(code) || /^57P0[123]$/.test(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'ETIMEDOUT') return true;
  const message = err instanceof Error ? err.message : '';
  return /timeout exceeded when trying to connect|Connection terminated (unexpectedly|due to connection timeout)/i.test(
    message,
  );
}

function toServiceError(err: unknown, logger: Logger, requestId: string): ServiceError {
  if (err instanceof ServiceError) return err;
  const e = (err ?? {}) as HttpishError;
  const status = e.status ?? e.statusCode;
  if (
    e.type === 'entity.parse.failed' ||
    (status === 400 && e.type === undefined && /json/i.test(String((err as Error)?.message)))
  ) {
    return new ApiError('INVALID_JSON', 'request body is not valid JSON');
  }
  if (status === 413 || e.type === 'entity.too.large')
    return new ApiError('PAYLOAD_TOO_LARGE', 'request body is too large');
  if (status === 415) return new ApiError('UNSUPPORTED_MEDIA_TYPE', 'request body must be application/json');
  if (e.type === 'request.aborted') return new ApiError('VALIDATION_ERROR', 'request was aborted');
  if (status && status >= 400 && status < 500) {
    const code: ErrorCode =
      status === 404
        ? 'NOT_FOUND'
        : status === 401
          ? 'UNAUTHORIZED'
          : status === 403
            ? 'FORBIDDEN'
            : 'VALIDATION_ERROR';
    return new ApiError(code, e.expose ? (err as Error).message : 'bad request', {}, status);
  }
  if (databaseRefusing(e, err)) {
    logger.warn({ err, request_id: requestId }, 'database refusing connections: 503');
    return new ApiError(
      'SERVICE_UNAVAILABLE',
      'the database is not accepting connections right now; try again shortly',
      { 'Retry-After': String(DATABASE_RETRY_AFTER_SEC) },
    );
  }
  // PostgreSQL errors carry a five-character SQLSTATE in `code`; connection failures a Node code.
  const isDbError = typeof e.code === 'string' && (/^[0-9A-Z]{5}$/.test(e.code) || e.code === 'ECONNREFUSED');
  logger.error({ err, request_id: requestId }, isDbError ? 'database error' : 'unhandled error');
  return isDbError
    ? new ApiError('DB_ERROR', 'database error')
    : new ApiError('INTERNAL_ERROR', 'internal error');
}

/**
 * One envelope for every failure: `{error: {message, code, request_id}}`, or the connector
 * endpoints' flat `{error: "<message>"}`; pages get an HTML page instead. Never a stack trace.
 */
export function errorHandler(logger: Logger): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined)
        throw new ApiError('NOT_FOUND', `no route for ${ctx.method} ${ctx.path}`);
    } catch (err) {
      const requestId = ctx.state.requestId as string;
      const failure = toServiceError(err, logger, requestId);
      ctx.status = httpStatusOf(failure);
      if (failure instanceof ApiError)
        for (const [name, value] of Object.entries(failure.headers)) ctx.set(name, value);
      if (ctx.state.errorStyle === 'html') {
        // Page routes and unknown paths outside /api/ answer people: an HTML page with navigation.
        const retryAfter = failure instanceof ApiError ? failure.headers['Retry-After'] : undefined;
        const page = renderErrorPage({
          status: ctx.status,
          detail: failure.message,
          requestId,
          retryAfterSec: retryAfter === undefined ? undefined : Number(retryAfter),
        });
        for (const [name, value] of Object.entries(page.headers)) ctx.set(name, value);
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = page.html.toString();
        return;
      }
      ctx.type = 'application/json';
      ctx.body =
        ctx.state.errorStyle === 'flat'
          ? { error: failure.message }
          : { error: { message: failure.message, code: failure.code, request_id: requestId } };
    }
  };
}
