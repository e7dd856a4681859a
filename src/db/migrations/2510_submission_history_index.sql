-- Up Migration
-- Submission history (GET /api/v1/submissions): an agent's submissions newest first, keyset-paged
-- on (created_at, id). The owner-wide listing joins agents and merges these per-agent ranges.
CREATE INDEX submissions_history_idx ON submissions (agent_id, created_at DESC, id DESC);
