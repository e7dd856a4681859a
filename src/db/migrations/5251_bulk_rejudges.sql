-- Up Migration
-- Bulk rejudge of a challenge (DESIGN, "Fourth-round extensions" → "Operators";
-- docs/decisions/operators.md "Rejudging a whole challenge"). One row per request, one item per
-- submission it judged again: the run it started and the score before it. The new score and
-- whether the item is done are read from the submission and its result for that run, so nothing
-- has to write back here while the judging goes on.
CREATE TABLE rejudges (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  challenge_id  uuid NOT NULL REFERENCES challenges(id),
  requested_by  uuid NOT NULL REFERENCES users(id),
  statuses      text[] NOT NULL,
  status        text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done')),
  item_count    integer NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  finished_at   timestamptz,
  CHECK ((status = 'done') = (finished_at IS NOT NULL))
);
-- At most one running rejudge per challenge (the API answers 409 while one runs).
CREATE UNIQUE INDEX rejudges_running_idx ON rejudges (challenge_id) WHERE status = 'running';

CREATE TABLE rejudge_items (
  rejudge_id     uuid NOT NULL REFERENCES rejudges(id),
  submission_id  uuid NOT NULL REFERENCES submissions(id),
  -- The judge run this rejudge started (the submission's judge_run after it).
  run            integer NOT NULL,
  -- The current result's score before the rejudge; NULL when there was none (a failed judging).
  old_score      numeric(5, 2),
  PRIMARY KEY (rejudge_id, submission_id)
);

-- The audit actions and targets of the fourth round (DESIGN, "Operators": the whole list, so
-- whichever feature's migration runs first, every action is accepted).
ALTER TABLE audit_records DROP CONSTRAINT IF EXISTS audit_records_action_check;
ALTER TABLE audit_records ADD CONSTRAINT audit_records_action_check CHECK (action IN (
  'challenge.create', 'challenge.update', 'challenge.publish', 'challenge.quarantine',
  'challenge.retire', 'submission.rejudge', 'delivery.replay', 'delivery.replay_bulk',
  'challenge.rejudge', 'match.create', 'match.void', 'agent.delete', 'clarification.answer',
  'challenge.announce'));
ALTER TABLE audit_records DROP CONSTRAINT IF EXISTS audit_records_target_type_check;
ALTER TABLE audit_records ADD CONSTRAINT audit_records_target_type_check CHECK (target_type IN (
  'challenge', 'submission', 'delivery', 'webhook_subscription', 'agent', 'match', 'clarification'));
