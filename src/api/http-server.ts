import type { Server } from 'node:http';
import type { Config } from '../config';
import { answerClientErrorsInEnvelope } from './client-error';

/**
 * The API's HTTP server settings, one place for the service's entry point and the tests'
 * in-process servers (which once carried their own keep-alive fix, and the service not).
 */
export function configureHttpServer(
  server: Server,
  config: Pick<Config, 'REQUEST_TIMEOUT_MS' | 'HTTP_KEEP_ALIVE_MS'>,
): void {
  answerClientErrorsInEnvelope(server);
  // Node's own deadline for a whole request, a little behind the 408 of requestBodyDeadline.
  server.requestTimeout = config.REQUEST_TIMEOUT_MS + 5_000;
  // An idle kept-alive connection stays open longer than any client keeps one, so the client
  // closes it first; with Node's 5 s a request sent as the server closed failed (config.ts).
  server.keepAliveTimeout = config.HTTP_KEEP_ALIVE_MS;
}
