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

export const spectatorFeedReads = new Counter({
  name: 'spectator_feed_reads_total',
  help: 'Database reads of the spectator feeds (each released batch is read once per process, whatever the number of streams)',
  registers: [metricsRegistry],
});

export const spectatorStreamsEvicted = new Counter({
  name: 'spectator_streams_evicted_total',
  help: 'Spectator streams dropped because their client took nothing for SPECTATOR_STALL_TIMEOUT_MS',
  registers: [metricsRegistry],
});

export const httpResponseCacheLookups = new Counter({
  name: 'http_response_cache_lookups_total',
  help: 'Versioned response cache of cacheable reads: answers served from this process (hit) or rendered (miss)',
  labelNames: ['route', 'outcome'] as const,
  registers: [metricsRegistry],
});
