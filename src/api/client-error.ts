import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Requests Node's HTTP parser rejects before Koa sees them (headers over 16 KiB, a malformed
 * request line) would otherwise get a bare 400/431 without our envelope or headers. This
 * answers them in the spec's envelope with X-Request-ID and X-API-Version, then closes.
 */
export function answerClientErrorsInEnvelope(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || (socket as { _httpMessage?: unknown })._httpMessage) {
      socket.destroy();
      return;
    }
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const status = tooLarge ? 431 : 400;
    const requestId = `req_${randomBytes(12).toString('hex')}`;
    const body = JSON.stringify({
      error: {
        message: tooLarge ? 'request headers are too large' : 'malformed HTTP request',
        code: tooLarge ? 'PAYLOAD_TOO_LARGE' : 'VALIDATION_ERROR',
        request_id: requestId,
      },
    });
    socket.end(
      `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-ID: ${requestId}\r\nX-API-Version: 1\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
