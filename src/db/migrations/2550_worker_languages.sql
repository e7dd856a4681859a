-- Up Migration
-- The program judge's languages each worker offers: a worker probes every language inside its
-- OS wall after start (compile and run a probe) and records those that passed, with the
-- runtime's version, refreshing last_seen_at while it lives. GET /api/v1/languages lists what at
-- least one live worker offers.
CREATE TABLE worker_languages (
  worker_id     text NOT NULL,
  language      text NOT NULL,
  version       text NOT NULL,
  last_seen_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (worker_id, language)
);
CREATE INDEX worker_languages_seen_idx ON worker_languages (last_seen_at);
