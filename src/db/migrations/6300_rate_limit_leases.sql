-- Up Migration
-- Issue 42: API processes take slots of a window's budget in batches (leases). A take reports how
-- many slots it granted (the count before it is gone once the row is updated), so the process
-- knows which places in the shared countdown are its own.
ALTER TABLE rate_limits ADD COLUMN granted integer NOT NULL DEFAULT 0;

-- Down Migration
ALTER TABLE rate_limits DROP COLUMN granted;
