-- Up Migration
-- Pages hold match outcomes until completed_at + the spectator delay (DESIGN "Fifth-round
-- extensions"): each ladder and board page reads the rated matches of its weight class completed
-- in the last few seconds (db/queries/match-participants.ts listRecentRatedOutcomes).
CREATE INDEX matches_class_completed_idx ON matches (weight_class_id, completed_at)
  WHERE status = 'complete' AND rated;
