-- Up Migration
-- Private tests and criteria run in a pass of their own after the public result (DESIGN,
-- "Fifth-round extensions" → "Whatever a program writes is data"; issue 38): the result is stored
-- with its public score first, the private pass fills these in later.

-- none: the judge config has no private test; pending: the private pass has not finished; done:
-- private_score is final (a pass that could not finish is 0 with its reason).
ALTER TABLE results
  ADD COLUMN private_state     text NOT NULL DEFAULT 'none' CHECK (private_state IN ('none', 'pending', 'done')),
  ADD COLUMN private_reason    text,
  ADD COLUMN private_judged_at timestamptz;
-- Results judged before: both passes ran together.
UPDATE results SET private_state = 'done', private_judged_at = judged_at WHERE private_score IS NOT NULL;
-- The final board counts the pending passes of a challenge's current results.
CREATE INDEX results_private_pending_idx ON results (challenge_id) WHERE private_state = 'pending' AND superseded_at IS NULL;

-- A private pass waits in the judging queue as its own work (low priority, no owner).
ALTER TABLE judging_queue DROP CONSTRAINT IF EXISTS judging_queue_kind_check;
ALTER TABLE judging_queue ADD CONSTRAINT judging_queue_kind_check
  CHECK (kind IN ('submission', 'rejudge', 'dry_run', 'game', 'private_pass'));
