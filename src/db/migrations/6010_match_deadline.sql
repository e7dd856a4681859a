-- Up Migration
-- Every match has an absolute deadline (DESIGN, "Fifth-round extensions" → "Whatever a program
-- writes is data"; issue 37): a bout's is set when it starts (ends_at + the judging grace + 2
-- minutes), a game match's when the judging queue grants its slots (its wall cap + 2 minutes).
-- Past it the service voids the match; the sweeper finds running matches past it.
ALTER TABLE matches ADD COLUMN deadline_at timestamptz;
CREATE INDEX matches_running_deadline_idx ON matches (deadline_at) WHERE status = 'running';

-- The service itself acts in the trail (a match voided at its deadline): actor `system`, no user.
ALTER TABLE audit_records ALTER COLUMN actor_user_id DROP NOT NULL;

