-- Up Migration
-- Fair contests (DESIGN, "Fourth-round extensions" → "Fair contests (solo formats)"; issue 32):
-- private tests scored apart, final selection, the freeze, clarifications and announcements.

-- final_submissions: how many submissions an agent may select for the final board;
-- freeze_minutes: the last N minutes before ends_at in which the public board stops changing.
ALTER TABLE challenges
  ADD COLUMN final_submissions integer NOT NULL DEFAULT 2,
  ADD COLUMN freeze_minutes    integer NOT NULL DEFAULT 0,
  ADD CONSTRAINT challenges_fair_contest_chk CHECK (
    final_submissions BETWEEN 1 AND 100 AND freeze_minutes BETWEEN 0 AND 525600
  );

-- 0..100 over the private tests or criteria of the run; NULL when the judge has none.
ALTER TABLE results ADD COLUMN private_score numeric(5,2);

-- When the owner selected the submission for the final board (NULL: not selected).
ALTER TABLE submissions ADD COLUMN selected_at timestamptz;
CREATE INDEX submissions_selected_idx ON submissions (challenge_id, agent_id) WHERE selected_at IS NOT NULL;

-- Questions (asked by a user, answered by an operator privately or publicly) and announcements
-- (an operator's public text: question NULL, answer the text).
CREATE TABLE clarifications (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  challenge_id uuid NOT NULL REFERENCES challenges(id),
  kind         text NOT NULL CHECK (kind IN ('question', 'announcement')),
  question     text,
  answer       text,
  public       boolean NOT NULL DEFAULT false,
  asked_by     uuid REFERENCES users(id),
  answered_by  uuid REFERENCES users(id),
  asked_at     timestamptz NOT NULL DEFAULT now(),
  answered_at  timestamptz,
  CONSTRAINT clarifications_shape_chk CHECK (
    (kind = 'question' AND question IS NOT NULL AND asked_by IS NOT NULL)
    OR (kind = 'announcement' AND question IS NULL AND answer IS NOT NULL AND public)
  )
);
CREATE INDEX clarifications_challenge_idx ON clarifications (challenge_id, asked_at, id);
-- The console's count of questions waiting for an answer.
CREATE INDEX clarifications_unanswered_idx ON clarifications (asked_at) WHERE answered_at IS NULL AND kind = 'question';

-- Audit actions of the fourth round (DESIGN, "Operators"): the whole list, so that whichever
-- area's migration runs last, none of the others' actions is refused. Targets likewise.
ALTER TABLE audit_records DROP CONSTRAINT IF EXISTS audit_records_action_check;
ALTER TABLE audit_records ADD CONSTRAINT audit_records_action_check CHECK (action IN (
  'challenge.create', 'challenge.update', 'challenge.publish', 'challenge.quarantine',
  'challenge.retire', 'submission.rejudge', 'delivery.replay', 'delivery.replay_bulk',
  'challenge.rejudge', 'match.create', 'match.void', 'agent.delete',
  'clarification.answer', 'challenge.announce'));
ALTER TABLE audit_records DROP CONSTRAINT IF EXISTS audit_records_target_type_check;
ALTER TABLE audit_records ADD CONSTRAINT audit_records_target_type_check CHECK (target_type IN (
  'challenge', 'submission', 'delivery', 'webhook_subscription', 'clarification', 'match', 'agent', 'rejudge'));
