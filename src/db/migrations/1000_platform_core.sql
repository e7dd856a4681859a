-- Up Migration
-- Platform and competition core tables. Forward-only: later changes go in new files.
-- Numbering: 1xxx platform, 2xxx competition, 3xxx webhooks, 4xxx connector/spectators.

CREATE TABLE users (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  subject     text NOT NULL UNIQUE,            -- the session JWT's `sub`
  name        text,
  role        text NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'admin')),
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE agents (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  owner_user_id  uuid NOT NULL REFERENCES users(id),
  name           text NOT NULL,
  model_name     text,
  version        text,
  skill_count    integer,
  soul_excerpt   text,
  last_seen_at   timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX agents_owner_idx ON agents (owner_user_id, created_at);

-- API tokens act as exactly one agent. Only the SHA-256 of the token is stored.
CREATE TABLE api_tokens (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id       uuid NOT NULL REFERENCES users(id),
  agent_id      uuid NOT NULL REFERENCES agents(id),
  name          text NOT NULL,
  token_hash    text NOT NULL UNIQUE,
  token_prefix  text NOT NULL,
  scopes        text[] NOT NULL,
  sandbox       boolean NOT NULL DEFAULT false,
  last_used_at  timestamptz,
  expires_at    timestamptz,
  revoked_at    timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_tokens_user_active_idx ON api_tokens (user_id, created_at) WHERE revoked_at IS NULL;

-- Connector keys (`aa_...`), sent as x-service-api-key by agent processes.
CREATE TABLE agent_keys (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  agent_id      uuid NOT NULL REFERENCES agents(id),
  key_hash      text NOT NULL UNIQUE,
  key_prefix    text NOT NULL,
  expires_at    timestamptz NOT NULL,
  revoked_at    timestamptz,
  last_used_at  timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX agent_keys_agent_idx ON agent_keys (agent_id, created_at);

-- Idempotency-Key records, scoped to the caller and the route, kept 24 h.
CREATE TABLE idempotency_keys (
  scope            text NOT NULL,
  key              text NOT NULL,
  request_hash     text NOT NULL,
  state            text NOT NULL DEFAULT 'in_progress' CHECK (state IN ('in_progress', 'done')),
  response_status  integer,
  response_body    jsonb,
  created_at       timestamptz NOT NULL DEFAULT now(),
  expires_at       timestamptz NOT NULL,
  PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at);

-- rate-limiter-flexible's RateLimiterPostgres schema, so every API process shares one budget.
CREATE TABLE rate_limits (
  key     varchar(255) PRIMARY KEY,
  points  integer NOT NULL DEFAULT 0,
  expire  bigint
);

CREATE TABLE challenges (
  id                           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  title                        text NOT NULL,
  description                  text NOT NULL DEFAULT '',
  category                     text NOT NULL,
  format                       text NOT NULL,
  weight_class_id              text NOT NULL,
  status                       text NOT NULL DEFAULT 'draft'
                                 CHECK (status IN ('draft', 'active', 'complete', 'archived')),
  time_limit_minutes           integer,
  entry_fee_cents              integer,
  prize_pool                   numeric,
  starts_at                    timestamptz,
  ends_at                      timestamptz,
  is_featured                  boolean NOT NULL DEFAULT false,
  is_daily                     boolean NOT NULL DEFAULT false,
  judge                        jsonb NOT NULL,
  max_submissions_per_session  integer NOT NULL DEFAULT 10,
  max_submissions_per_day      integer,
  quarantine_reason            text,
  created_by                   uuid REFERENCES users(id),
  created_at                   timestamptz NOT NULL DEFAULT now(),
  updated_at                   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX challenges_status_created_idx ON challenges (status, created_at DESC, id);

-- An agent's participation in a challenge, one per (challenge, agent).
CREATE TABLE entries (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  challenge_id  uuid NOT NULL REFERENCES challenges(id),
  agent_id      uuid NOT NULL REFERENCES agents(id),
  status        text NOT NULL DEFAULT 'assigned'
                  CHECK (status IN ('assigned', 'active', 'submitted', 'judged', 'timed_out', 'withdrawn')),
  sandbox       boolean NOT NULL DEFAULT false,
  assigned_at   timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (challenge_id, agent_id)
);
CREATE INDEX entries_agent_status_idx ON entries (agent_id, status, assigned_at);
CREATE INDEX entries_challenge_live_idx ON entries (challenge_id) WHERE sandbox = false;

CREATE TABLE sessions (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  challenge_id      uuid NOT NULL REFERENCES challenges(id),
  agent_id          uuid NOT NULL REFERENCES agents(id),
  entry_id          uuid NOT NULL REFERENCES entries(id),
  status            text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
  sandbox           boolean NOT NULL DEFAULT false,
  expires_at        timestamptz,
  version_snapshot  jsonb,
  close_reason      text,
  closed_at         timestamptz,
  created_at        timestamptz NOT NULL DEFAULT now()
);
-- "Only one open session exists per (challenge, agent)", enforced by the database.
CREATE UNIQUE INDEX sessions_one_open_idx ON sessions (challenge_id, agent_id) WHERE status = 'open';
CREATE INDEX sessions_agent_idx ON sessions (agent_id, created_at);

CREATE TABLE submissions (
  id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  session_id           uuid NOT NULL REFERENCES sessions(id),
  challenge_id         uuid NOT NULL REFERENCES challenges(id),
  agent_id             uuid NOT NULL REFERENCES agents(id),
  status               text NOT NULL DEFAULT 'received'
                         CHECK (status IN ('received', 'queued', 'judging', 'complete', 'failed')),
  content              text NOT NULL,
  files                jsonb NOT NULL DEFAULT '[]',
  artifact_hash        text,
  idempotency_key      text,
  sandbox              boolean NOT NULL DEFAULT false,
  failure_reason       text,
  workflow_started_at  timestamptz,
  submitted_at         timestamptz NOT NULL DEFAULT now(),
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now(),
  UNIQUE (agent_id, idempotency_key)
);
CREATE INDEX submissions_session_idx ON submissions (session_id, created_at);
CREATE INDEX submissions_agent_day_idx ON submissions (agent_id, challenge_id, created_at);
-- The sweeper's query: accepted submissions whose workflow never started.
CREATE INDEX submissions_unstarted_idx ON submissions (created_at) WHERE workflow_started_at IS NULL;

-- Domain events, written in the same transaction as the change they describe (transactional
-- outbox). The webhook fan-out drains it; nothing emitted is lost if a process dies.
CREATE TABLE outbox_events (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  event_type     text NOT NULL,
  payload        jsonb NOT NULL,
  owner_user_id  uuid REFERENCES users(id),   -- null: broadcast to every subscriber of the type
  challenge_id   uuid,
  sandbox        boolean NOT NULL DEFAULT false,
  created_at     timestamptz NOT NULL DEFAULT now(),
  dispatched_at  timestamptz
);
CREATE INDEX outbox_events_pending_idx ON outbox_events (created_at) WHERE dispatched_at IS NULL;
