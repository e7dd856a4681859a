import http from 'node:http';
import type { Config } from '../config';
import { constantTimeEqual } from '../auth/secrets';
import { metricsRegistry } from '../lib/metrics';

/**
 * Whether a request may read /metrics: always without METRICS_TOKEN (development; production
 * refuses that at start), otherwise only with `Authorization: Bearer <METRICS_TOKEN>`.
 */
export function metricsCredentialAccepted(
  config: Pick<Config, 'METRICS_TOKEN'>,
  authorization: string,
): boolean {
  if (!config.METRICS_TOKEN) return true;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match !== null && constantTimeEqual(match[1], config.METRICS_TOKEN);
}

/**
 * The separate /metrics listener (METRICS_PORT on METRICS_HOST, loopback by default): only
 * GET /metrics, with METRICS_TOKEN when that is set too.
 */
export function startMetricsListener(
  config: Pick<Config, 'METRICS_TOKEN' | 'METRICS_PORT' | 'METRICS_HOST'>,
): http.Server {
  const server = http.createServer((req, res) => {
    const answer = (status: number, body: string, type = 'text/plain; charset=utf-8') => {
      res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
      res.end(body);
    };
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') return answer(404, 'not found\n');
    if (!metricsCredentialAccepted(config, req.headers.authorization ?? ''))
      return answer(401, 'unauthorized\n');
    metricsRegistry.metrics().then(
      (text) => answer(200, text, metricsRegistry.contentType),
      () => answer(500, 'metrics unavailable\n'),
    );
  });
  server.listen(config.METRICS_PORT, config.METRICS_HOST);
  return server;
}
