import type Koa from 'koa';
import type { Logger } from 'pino';

/**
 * A request body not received within the request timeout → 408 REQUEST_TIMEOUT and the
 * connection closed (DESIGN): a body dripped a byte at a time no longer holds a connection (and
 * the handler waiting for it) open for Node's default 300 s. Requests without a body, and
 * bodies that arrive in time, are untouched; the clock starts when the request reaches us.
 */
export function requestBodyDeadline(timeoutMs: number, logger: Logger): Koa.Middleware {
  return async (ctx, next) => {
    const req = ctx.req;
    const hasBody = Number(ctx.get('content-length') || '0') > 0 || ctx.get('transfer-encoding') !== '';
    if (!hasBody || req.complete) return next();
    const timer = setTimeout(() => {
      if (req.complete) return;
      const requestId = String(ctx.state.requestId ?? '');
      logger.warn(
        { request_id: requestId, path: ctx.path, timeout_ms: timeoutMs },
        'request body timed out: 408',
      );
      const res = ctx.res;
      if (!res.headersSent) {
        res.writeHead(408, {
          'Content-Type': 'application/json; charset=utf-8',
          Connection: 'close',
          'X-Request-ID': requestId,
        });
        res.end(
          JSON.stringify({
            error: {
              message: `the request body was not received within ${timeoutMs} ms`,
              code: 'REQUEST_TIMEOUT',
              request_id: requestId,
            },
          }),
          () => req.socket.destroy(),
        );
      } else req.socket.destroy();
    }, timeoutMs);
    const clear = () => clearTimeout(timer);
    req.once('end', clear);
    req.once('close', clear);
    await next();
  };
}
