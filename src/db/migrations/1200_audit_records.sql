-- Up Migration
-- The audit trail (docs/decisions/operators.md): one row per operator action and per replay by
-- anyone, written in the action's own transaction so the two commit or roll back together.
-- Append-only: nothing updates or deletes these rows.
CREATE TABLE audit_records (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- The subject (the session JWT's `sub`) of the user who acted, copied so the trail reads on its own.
  actor          text NOT NULL,
  actor_user_id  uuid NOT NULL REFERENCES users(id),
  action         text NOT NULL CHECK (action IN (
                   'challenge.create', 'challenge.update', 'challenge.publish', 'challenge.quarantine',
                   'challenge.retire', 'submission.rejudge', 'delivery.replay', 'delivery.replay_bulk')),
  target_type    text NOT NULL CHECK (target_type IN ('challenge', 'submission', 'delivery', 'webhook_subscription')),
  target_id      text NOT NULL,
  -- clock_timestamp(): two actions in one transaction still order.
  at             timestamptz NOT NULL DEFAULT clock_timestamp(),
  detail         jsonb NOT NULL DEFAULT '{}'::jsonb
);
-- Newest first, keyset on (at, id); by target and by actor.
CREATE INDEX audit_records_at_idx ON audit_records (at DESC, id DESC);
CREATE INDEX audit_records_target_idx ON audit_records (target_id, at DESC, id DESC);
CREATE INDEX audit_records_actor_idx ON audit_records (actor, at DESC, id DESC);
