-- Up Migration
-- Live (non-sandbox) entries per challenge, maintained by triggers on `entries`, so every challenge
-- read (the listing's entry_count above all) looks one row up instead of counting the challenge's
-- entries: on a 10,000-entry challenge that count was most of the list's PostgreSQL time
-- (docs/benchmarks.md). A separate table, not a column on `challenges`: entering takes a share
-- lock on the challenge row, which a counter update would have to upgrade. Concurrent entries into
-- one challenge queue on its counter row until they commit (a short, single-row wait).
CREATE TABLE challenge_entry_counts (
  challenge_id  uuid PRIMARY KEY REFERENCES challenges(id) ON DELETE CASCADE,
  live_entries  integer NOT NULL DEFAULT 0 CHECK (live_entries >= 0)
);

INSERT INTO challenge_entry_counts (challenge_id, live_entries)
SELECT challenge_id, count(*) FROM entries WHERE sandbox = false GROUP BY challenge_id;

CREATE FUNCTION entries_count_live() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND NOT OLD.sandbox THEN
    UPDATE challenge_entry_counts SET live_entries = live_entries - 1 WHERE challenge_id = OLD.challenge_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NOT NEW.sandbox THEN
    INSERT INTO challenge_entry_counts (challenge_id, live_entries) VALUES (NEW.challenge_id, 1)
    ON CONFLICT (challenge_id) DO UPDATE SET live_entries = challenge_entry_counts.live_entries + 1;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER entries_count_live_insert_delete AFTER INSERT OR DELETE ON entries
  FOR EACH ROW EXECUTE FUNCTION entries_count_live();
-- Status changes (the common update) do not touch the count.
CREATE TRIGGER entries_count_live_move AFTER UPDATE OF sandbox, challenge_id ON entries
  FOR EACH ROW WHEN (OLD.sandbox IS DISTINCT FROM NEW.sandbox OR OLD.challenge_id IS DISTINCT FROM NEW.challenge_id)
  EXECUTE FUNCTION entries_count_live();
