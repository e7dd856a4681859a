import type Koa from 'koa';
import type { Logger } from 'pino';
import { httpRequestDuration } from '../../lib/metrics';
import { newRequestId } from '../../lib/request-id';

/**
 * Request id, version header and one access-log line per request (never headers or bodies). The
 * line and the duration metric are written once the response has left (its `close`), not before
 * Koa sends it, so they stay off the request's critical path (docs/benchmarks.md).
 */
export function requestContext(logger: Logger): Koa.Middleware {
  return async (ctx, next) => {
    const requestId = newRequestId();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-ID', requestId);
    ctx.set('X-API-Version', '1');
    const started = process.hrtime.bigint();
    const record = () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = (ctx.state.operationId as string | undefined) ?? 'unmatched';
      httpRequestDuration.observe({ method: ctx.method, route, status: String(ctx.status) }, seconds);
      logger.info(
        {
          request_id: requestId,
          method: ctx.method,
          route,
          path: ctx.path,
          status: ctx.status,
          ms: Math.round(seconds * 1000),
        },
        'request',
      );
    };
    try {
      await next();
    } finally {
      if (ctx.res.closed) record();
      else ctx.res.once('close', record);
    }
  };
}
