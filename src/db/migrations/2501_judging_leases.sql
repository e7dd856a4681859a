-- Up Migration
-- Judgings in flight (docs/decisions/security.md, "Fair share of the judges"). A submission run
-- holds a lease from admission until its result or failure is recorded; admission counts the
-- leases of the agent and of its owner, so one competitor cannot take every judging slot of every
-- worker. A lease expires unless the judging activity keeps refreshing it (a workflow terminated
-- by an operator leaves at most a stale lease, not a blocked competitor).
CREATE TABLE judging_leases (
  submission_id  uuid PRIMARY KEY REFERENCES submissions(id) ON DELETE CASCADE,
  run            integer NOT NULL,
  agent_id       uuid NOT NULL REFERENCES agents(id),
  user_id        uuid NOT NULL REFERENCES users(id),
  acquired_at    timestamptz NOT NULL DEFAULT now(),
  expires_at     timestamptz NOT NULL
);
CREATE INDEX judging_leases_user_idx ON judging_leases (user_id, expires_at);
CREATE INDEX judging_leases_agent_idx ON judging_leases (agent_id, expires_at);
