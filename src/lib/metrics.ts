import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** One registry per process; /metrics serves it. */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request duration by route and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [metricsRegistry],
});

export const rateLimitedTotal = new Counter({
  name: 'rate_limited_requests_total',
  help: 'Requests refused with 429, by category',
  labelNames: ['category'] as const,
  registers: [metricsRegistry],
});
