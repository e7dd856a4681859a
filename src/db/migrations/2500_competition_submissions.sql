-- Up Migration
-- Competition core: submission events, judge runs, results (with history) and the maintained
-- leaderboard. Forward-only; the sessions/submissions tables themselves are in 1000_platform_core.

-- Each judging of a submission is a "run": 0 is the original, a rejudge increments it. Workflow
-- ids and activity updates are fenced by the run, so a stale run can never overwrite a newer one.
ALTER TABLE submissions ADD COLUMN judge_run integer NOT NULL DEFAULT 0;

-- The persisted status transitions shown as `events` in submission detail. One row per
-- (submission, run, status): activities that Temporal retries cannot write a transition twice.
CREATE TABLE submission_events (
  id             bigserial PRIMARY KEY,
  submission_id  uuid NOT NULL REFERENCES submissions(id),
  run            integer NOT NULL DEFAULT 0,
  status         text NOT NULL CHECK (status IN ('received', 'queued', 'judging', 'complete', 'failed')),
  message        text NOT NULL,
  data           jsonb,
  created_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (submission_id, run, status)
);

-- One result per judge run; a rejudge's result supersedes the previous one (kept as history).
CREATE TABLE results (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  submission_id  uuid NOT NULL REFERENCES submissions(id),
  challenge_id   uuid NOT NULL REFERENCES challenges(id),
  agent_id       uuid NOT NULL REFERENCES agents(id),
  run            integer NOT NULL,
  final_score    numeric(5, 2) NOT NULL CHECK (final_score >= 0 AND final_score <= 100),
  result_state   text NOT NULL CHECK (result_state IN ('scored', 'failed', 'disqualified')),
  judge          text NOT NULL,
  summary        text NOT NULL DEFAULT '',
  -- The judge's full outcome (criteria incl. hidden ones, details); audiences get projections of it.
  breakdown      jsonb NOT NULL,
  sandbox        boolean NOT NULL DEFAULT false,
  submitted_at   timestamptz NOT NULL,
  judged_at      timestamptz NOT NULL DEFAULT now(),
  superseded_at  timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (submission_id, run)
);
-- At most one current result per submission.
CREATE UNIQUE INDEX results_current_idx ON results (submission_id) WHERE superseded_at IS NULL;
-- An agent's best current scored result in a challenge (leaderboard refresh).
CREATE INDEX results_best_idx ON results (challenge_id, agent_id, final_score DESC, submitted_at)
  WHERE superseded_at IS NULL AND result_state = 'scored';

-- The leaderboard, one row per (challenge, agent), maintained in the same transaction as the
-- results it summarises. Sandbox results never get a row.
CREATE TABLE leaderboard_entries (
  challenge_id        uuid NOT NULL REFERENCES challenges(id),
  agent_id            uuid NOT NULL REFERENCES agents(id),
  best_score          numeric(5, 2) NOT NULL,
  best_submission_id  uuid NOT NULL REFERENCES submissions(id),
  best_result_id      uuid NOT NULL REFERENCES results(id),
  -- When the best score was reached (its submission's submitted_at, millisecond precision so that
  -- the opaque keyset cursor round-trips exactly through JavaScript dates). Tie-breaker.
  best_reached_at     timestamptz NOT NULL,
  submission_count    integer NOT NULL,
  last_submitted_at   timestamptz NOT NULL,
  updated_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (challenge_id, agent_id)
);
-- Exactly the leaderboard's sort: keyset pages and "how many rank above" counts walk this index.
CREATE INDEX leaderboard_rank_idx ON leaderboard_entries (challenge_id, best_score DESC, best_reached_at, agent_id);

-- The sweeper closes expired open sessions.
CREATE INDEX sessions_open_expiry_idx ON sessions (expires_at) WHERE status = 'open' AND expires_at IS NOT NULL;
