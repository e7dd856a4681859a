-- Up Migration
-- A challenge's version (DESIGN, "Fourth-round extensions" → "Operators"): an integer that grows by
-- one with every change of the row, whoever makes it (an operator's edit, a lifecycle transition,
-- the lifecycle workflow's automatic start and end). GET /api/v1/admin/challenges/{id} answers it
-- as `version` and `ETag: "<version>"`; PATCH with a stale If-Match is refused (412). A trigger
-- keeps it, so no writer can forget it.
ALTER TABLE challenges ADD COLUMN version integer NOT NULL DEFAULT 1;

CREATE FUNCTION challenges_bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF ROW(NEW.*) IS DISTINCT FROM ROW(OLD.*) THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER challenges_version BEFORE UPDATE ON challenges
  FOR EACH ROW EXECUTE FUNCTION challenges_bump_version();
