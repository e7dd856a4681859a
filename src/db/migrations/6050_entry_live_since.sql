-- Up Migration
-- During a freeze the public entry_count is the count as the board froze (DESIGN "Fifth-round
-- extensions", issue 38): each entry records when it became a live (non-sandbox) ladder entry, so
-- that count is the live entries older than the freeze. Set by the trigger below on insert and
-- when a sandbox entry turns live (upsertEntry), so no writer has to remember it.
ALTER TABLE entries ADD COLUMN live_since timestamptz;
UPDATE entries SET live_since = assigned_at WHERE NOT sandbox;

CREATE FUNCTION entries_mark_live_since() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT NEW.sandbox AND NEW.live_since IS NULL THEN
    NEW.live_since := now();
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER entries_mark_live_since BEFORE INSERT OR UPDATE OF sandbox ON entries
  FOR EACH ROW EXECUTE FUNCTION entries_mark_live_since();
