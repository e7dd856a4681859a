-- Up Migration
-- Webhook subscriptions, deliveries (one per event × subscription) and every delivery attempt.
-- Forward-only: later changes go in new 3xxx files.

CREATE TABLE webhook_subscriptions (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  owner_user_id      uuid NOT NULL REFERENCES users(id),
  url                text NOT NULL,
  events             text[] NOT NULL,
  -- AES-256-GCM secret box (src/webhooks/secret-box.ts) keyed by WEBHOOK_SECRET_KEY; never the plaintext.
  secret_encrypted   text NOT NULL,
  secret_prefix      text NOT NULL,
  -- active; inactive = deleted by the owner (terminal); disabled = by the service (10 consecutive
  -- failed attempts, or a 410 answer), re-enabled with PATCH {active: true}.
  status             text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive', 'disabled')),
  failure_count      integer NOT NULL DEFAULT 0,
  -- Bumped on every re-enable: the health workflow drops outcomes of attempts made before it.
  enable_generation  integer NOT NULL DEFAULT 0,
  last_delivery_at   timestamptz,
  -- Last failed attempt: successes are only signalled to the health workflow when a count may be open.
  last_failure_at    timestamptz,
  disabled_at        timestamptz,
  disabled_reason    text,
  deactivated_at     timestamptz,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_subscriptions_owner_idx ON webhook_subscriptions (owner_user_id, created_at DESC);
-- Fan-out: active subscriptions listening to an event type.
CREATE INDEX webhook_subscriptions_active_events_idx ON webhook_subscriptions USING gin (events) WHERE status = 'active';

CREATE TABLE webhook_deliveries (
  id                   text PRIMARY KEY,                 -- whd_<32 hex>, also X-Svc-Delivery-ID / webhook-id
  seq                  bigserial NOT NULL,                -- creation order (one fan-out pass shares created_at)
  subscription_id      uuid NOT NULL REFERENCES webhook_subscriptions(id),
  event_id             uuid REFERENCES outbox_events(id),
  event_type           text NOT NULL,
  -- The exact bytes sent (and signed) by every attempt and every replay.
  body                 text NOT NULL,
  status               text NOT NULL DEFAULT 'pending'
                         CHECK (status IN ('pending', 'retrying', 'delivered', 'dead_letter')),
  -- Attempt series: 0 = the original delivery, n = the n-th replay (workflow webhook-delivery-<id>-replay-<n>).
  series               integer NOT NULL DEFAULT 0,
  attempt_count        integer NOT NULL DEFAULT 0,        -- attempts in the current series
  last_status_code     integer,
  last_error           text,
  next_attempt_at      timestamptz,
  delivered_at         timestamptz,
  dead_lettered_at     timestamptz,
  workflow_id          text NOT NULL,
  workflow_started_at  timestamptz,                       -- null: the sweeper starts it
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now(),
  -- Fan-out is exactly once per (event, subscription), however often the outbox is drained.
  CONSTRAINT webhook_deliveries_event_subscription_key UNIQUE (event_id, subscription_id)
);
CREATE INDEX webhook_deliveries_subscription_idx ON webhook_deliveries (subscription_id, seq DESC);
CREATE INDEX webhook_deliveries_subscription_status_idx ON webhook_deliveries (subscription_id, status, seq DESC);
CREATE INDEX webhook_deliveries_unstarted_idx ON webhook_deliveries (created_at) WHERE workflow_started_at IS NULL;

CREATE TABLE webhook_attempts (
  id                 bigserial PRIMARY KEY,
  delivery_id        text NOT NULL REFERENCES webhook_deliveries(id),
  series             integer NOT NULL,
  attempt_number     integer NOT NULL,
  status_code        integer,
  latency_ms         integer NOT NULL,
  success            boolean NOT NULL,
  error              text,
  response_excerpt   text,
  attempted_at       timestamptz NOT NULL,
  -- An activity retried by Temporal records (and sends) an attempt once.
  CONSTRAINT webhook_attempts_once UNIQUE (delivery_id, series, attempt_number)
);
