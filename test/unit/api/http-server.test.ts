/**
 * The API's HTTP server settings (src/api/http-server.ts), shared by the service's entry point and
 * the tests' servers. The topology run of 29 Nov 2026 failed with "other side closed": its first
 * request after a pause reused a connection the API (Node's default 5 s keep-alive) was closing.
 * A client that reuses connections must always be the one that closes an idle one first.
 */
import { createServer } from 'node:http';
import { configureHttpServer } from '../../../src/api/http-server';
import { loadConfig } from '../../../src/config';

const config = loadConfig({});

/** How long fetch (undici) reuses an idle connection by default, and a load balancer's common idle timeout. */
const FETCH_KEEP_ALIVE_MS = 4_000;
const LOAD_BALANCER_IDLE_MS = 60_000;

test('an idle connection outlives the clients that reuse it: fetch, and a load balancer', () => {
  const server = createServer();
  configureHttpServer(server, config);
  expect(server.keepAliveTimeout).toBe(config.HTTP_KEEP_ALIVE_MS);
  expect(server.keepAliveTimeout).toBeGreaterThan(FETCH_KEEP_ALIVE_MS);
  expect(server.keepAliveTimeout).toBeGreaterThan(LOAD_BALANCER_IDLE_MS);
  // Node's own backstop for a whole request stays behind the 408 the API answers itself.
  expect(server.requestTimeout).toBeGreaterThan(config.REQUEST_TIMEOUT_MS);
  // Requests Node's parser refuses are answered in the envelope (client-error.ts).
  expect(server.listenerCount('clientError')).toBe(1);
});

test('the keep-alive is configuration, within bounds', () => {
  expect(loadConfig({ HTTP_KEEP_ALIVE_MS: '120000' }).HTTP_KEEP_ALIVE_MS).toBe(120_000);
  expect(() => loadConfig({ HTTP_KEEP_ALIVE_MS: '10' })).toThrow(/HTTP_KEEP_ALIVE_MS/);
});
