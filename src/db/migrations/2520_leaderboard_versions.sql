-- A number per challenge that changes whenever anything its leaderboard shows changes: a row of
-- leaderboard_entries (a new result, a refresh, a removal) or the name of an agent on it. Each API
-- process keeps rendered leaderboard pages keyed by it, so a read costs one index lookup instead of
-- the page statement, and a 304 costs no page at all. Kept by triggers, so no writer can forget it.
CREATE TABLE leaderboard_versions (
  challenge_id uuid PRIMARY KEY REFERENCES challenges(id),
  version      bigint NOT NULL DEFAULT 1
);

CREATE FUNCTION bump_leaderboard_version() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  target uuid;
BEGIN
  IF TG_OP = 'DELETE' THEN target := OLD.challenge_id; ELSE target := NEW.challenge_id; END IF;
  INSERT INTO leaderboard_versions AS v (challenge_id) VALUES (target)
  ON CONFLICT (challenge_id) DO UPDATE SET version = v.version + 1;
  IF TG_OP = 'UPDATE' AND OLD.challenge_id IS DISTINCT FROM NEW.challenge_id THEN
    INSERT INTO leaderboard_versions AS v (challenge_id) VALUES (OLD.challenge_id)
    ON CONFLICT (challenge_id) DO UPDATE SET version = v.version + 1;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER leaderboard_entries_bump_version
  AFTER INSERT OR UPDATE OR DELETE ON leaderboard_entries
  FOR EACH ROW EXECUTE FUNCTION bump_leaderboard_version();

-- Renaming an agent changes every leaderboard it is on (challenge order: two renames never deadlock).
CREATE FUNCTION bump_leaderboards_of_agent() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO leaderboard_versions AS v (challenge_id)
    SELECT challenge_id FROM leaderboard_entries WHERE agent_id = NEW.id ORDER BY challenge_id
  ON CONFLICT (challenge_id) DO UPDATE SET version = v.version + 1;
  RETURN NULL;
END $$;

CREATE TRIGGER agents_rename_bumps_leaderboards
  AFTER UPDATE OF name ON agents
  FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name)
  EXECUTE FUNCTION bump_leaderboards_of_agent();
