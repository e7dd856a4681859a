-- Up Migration
-- Deleting an agent (DESIGN "Submitting code the way people do"): the row stays (its results,
-- board rows, ratings and matches keep its name) but it leaves its owner's listings and pages,
-- and its keys and tokens are revoked in the same transaction.
ALTER TABLE agents ADD COLUMN deleted_at timestamptz;
CREATE INDEX agents_owner_live_idx ON agents (owner_user_id, created_at) WHERE deleted_at IS NULL;

-- The audit actions and targets of the fourth round (DESIGN, "Operators": the whole list, so
-- whichever feature's migration runs last, every action is accepted).
ALTER TABLE audit_records DROP CONSTRAINT IF EXISTS audit_records_action_check;
ALTER TABLE audit_records ADD CONSTRAINT audit_records_action_check CHECK (action IN (
  'challenge.create', 'challenge.update', 'challenge.publish', 'challenge.quarantine',
  'challenge.retire', 'submission.rejudge', 'delivery.replay', 'delivery.replay_bulk',
  'challenge.rejudge', 'match.create', 'match.void', 'agent.delete', 'clarification.answer',
  'challenge.announce'));
ALTER TABLE audit_records DROP CONSTRAINT IF EXISTS audit_records_target_type_check;
ALTER TABLE audit_records ADD CONSTRAINT audit_records_target_type_check CHECK (target_type IN (
  'challenge', 'submission', 'delivery', 'webhook_subscription', 'agent', 'match', 'clarification', 'rejudge'));
