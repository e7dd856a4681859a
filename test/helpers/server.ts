import type { Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { createApp } from '../../src/api/app';
import { buildDeps } from '../../src/api/build-deps';
import { configureHttpServer } from '../../src/api/http-server';
import type { AppDeps } from '../../src/api/deps';
import type { AnyRouteDef } from '../../src/api/route';
import { loadConfig, type Config } from '../../src/config';
import { createLogger } from '../../src/lib/logger';
import type { Logger } from 'pino';

// Response bodies default to `any` on purpose: suites read `res.body.data.id` without ceremony.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/**
 * The response is the spec's error envelope with this status and code, its request_id the one in
 * X-Request-ID, and (when given) a message matching `message`.
 */
export function expectError(res: ApiResponse, status: number, code: string, message?: RegExp): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
  if (message) expect(res.body.error.message).toMatch(message);
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as is (for malformed-JSON and content-type tests). */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Bearer credential (API token or JWT). */
  auth?: string;
  /** Connector key, sent as x-service-api-key. */
  agentKey?: string;
}

export interface TestServer {
  baseUrl: string;
  deps: AppDeps;
  config: Config;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** A route table other than allRoutes() (e.g. allRoutes() plus test-only routes). */
  routes?: AnyRouteDef[];
  /** A logger of the test's own (e.g. writing to an in-memory stream). */
  logger?: Logger;
  /** A fixed port (from freeLoopbackPort) when the config must name the server's own URL. */
  port?: number;
  /** A Temporal client of the test's own (test/fakes/temporal.ts): the server then never dials Temporal. */
  temporal?: AppDeps['temporal'];
}

/** A loopback port free right now, for a server whose config must know its URL before it listens. */
export async function freeLoopbackPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

let ipCounter = 0;

/**
 * The real Koa app over real HTTP on an ephemeral loopback port, with real PostgreSQL and
 * Temporal. Each server gets its own client IP (X-Forwarded-For) so anonymous rate limits of
 * one suite do not leak into another.
 */
export async function startTestServer(
  overrides: Partial<Record<keyof Config, string>> = {},
  options: TestServerOptions = {},
): Promise<TestServer> {
  const config = loadConfig({ ...process.env, ...overrides });
  const logger = options.logger ?? createLogger(config.LOG_LEVEL, 'api-test');
  const built = buildDeps(config, logger);
  const deps: AppDeps = options.temporal ? { ...built.deps, temporal: options.temporal } : built.deps;
  const close = built.close;
  const server: Server = createApp(deps, options.routes).listen(options.port ?? 0, '127.0.0.1');
  // The service's own settings (keep-alive longer than fetch's: ECONNRESET was seen in CI on the
  // scope matrix before the tests' servers had it, and in the topology before the service had it).
  configureHttpServer(server, deps.config);
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ipCounter += 1;
  const clientIp = `10.${process.pid % 250}.${ipCounter % 250}.${Math.floor(Math.random() * 250)}`;

  return {
    baseUrl,
    deps,
    config,
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { 'x-forwarded-for': clientIp, ...options.headers };
      if (options.auth) headers.authorization = `Bearer ${options.auth}`;
      if (options.agentKey) headers['x-service-api-key'] = options.agentKey;
      let body: string | undefined;
      if (options.rawBody !== undefined) body = options.rawBody;
      else if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(baseUrl + path, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        /* non-JSON bodies (CSV, HTML, metrics) stay text */
      }
      return { status: res.status, headers: res.headers, body: parsed as never, text };
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await close();
    },
  };
}
