import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** One registry per process; /metrics serves it. Every metric of the service is declared in this file. */
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

/**
 * The rate limiter's store traffic (issue 42): round trips by kind (take, give_back), keys they
 * carried, and requests that waited on one; per 1,000 requests these say what the limiter costs
 * independently of the machine's load.
 */
export const rateLimitStoreCalls = new Counter({
  name: 'rate_limit_store_calls_total',
  help: 'Round trips of the rate limiter to its store, by kind',
  labelNames: ['op'] as const,
  registers: [metricsRegistry],
});

export const rateLimitStoreKeys = new Counter({
  name: 'rate_limit_store_keys_total',
  help: 'Keys carried by the rate limiter store round trips, by kind',
  labelNames: ['op'] as const,
  registers: [metricsRegistry],
});

export const rateLimitWaits = new Counter({
  name: 'rate_limit_waits_total',
  help: 'Counted requests that waited on a store round trip (no local slot at hand)',
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

/** Open spectator (SSE) streams in this process; src/api/sse.ts keeps it current. */
export const spectatorStreamsOpen = new Gauge({
  name: 'spectator_streams_open',
  help: 'Open spectator (SSE) streams in this process',
  registers: [metricsRegistry],
});

export const webhookAttemptsTotal = new Counter({
  name: 'webhook_attempts_total',
  help: 'Webhook delivery attempts by outcome',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

export const webhookAttemptLatency = new Histogram({
  name: 'webhook_attempt_latency_seconds',
  help: 'Receiver response time per attempt',
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

export const webhookEventsDispatched = new Counter({
  name: 'webhook_outbox_events_dispatched_total',
  help: 'Outbox events fanned out to webhook deliveries',
  registers: [metricsRegistry],
});

export const webhookDeliveriesCreated = new Counter({
  name: 'webhook_deliveries_created_total',
  help: 'Webhook deliveries created by the fan-out',
  registers: [metricsRegistry],
});

export const webhookInvalidEvents = new Counter({
  name: 'webhook_outbox_invalid_events_total',
  help: 'Outbox events whose payload could not be turned into a delivery body (emitter bug)',
  registers: [metricsRegistry],
});

export const webhookDispatchLag = new Histogram({
  name: 'webhook_outbox_dispatch_lag_seconds',
  help: 'Time from an event being written to its deliveries being created',
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [metricsRegistry],
});
