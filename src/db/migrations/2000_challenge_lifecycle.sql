-- Up Migration
-- Challenges: lifecycle bookkeeping, listing order, integrity checks; entries: listing index.
-- Forward-only. Range 2000-2499 belongs to competition-challenges.

ALTER TABLE challenges
  -- Idempotency guards of the lifecycle workflow's activities: each event is emitted once per
  -- armed time (an edit moving starts_at/ends_at into the future, or a re-publish, re-arms them).
  ADD COLUMN started_event_at timestamptz,
  ADD COLUMN ended_event_at   timestamptz,
  -- Audit of operator transitions (the latest of each).
  ADD COLUMN published_at     timestamptz,
  ADD COLUMN quarantined_at   timestamptz,
  ADD COLUMN retired_at       timestamptz,
  ADD CONSTRAINT challenges_window_chk CHECK (starts_at IS NULL OR ends_at IS NULL OR ends_at > starts_at),
  ADD CONSTRAINT challenges_numbers_chk CHECK (
    (time_limit_minutes IS NULL OR time_limit_minutes > 0)
    AND (entry_fee_cents IS NULL OR entry_fee_cents >= 0)
    AND (prize_pool IS NULL OR prize_pool >= 0)
    AND max_submissions_per_session > 0
    AND (max_submissions_per_day IS NULL OR max_submissions_per_day > 0)
  );

-- The listing order (featured first, newest first, id as the tie-breaker for stable pages).
CREATE INDEX challenges_listing_idx ON challenges (is_featured DESC, created_at DESC, id DESC);

-- GET /challenges/{id}/entries pages by assignment time.
CREATE INDEX entries_challenge_assigned_idx ON entries (challenge_id, assigned_at, id);
