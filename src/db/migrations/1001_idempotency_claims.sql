-- Up Migration
-- Fencing for Idempotency-Key claims: every claim (first use, takeover of an abandoned
-- in-progress record, reuse after expiry) gets a fresh claim_id, and only the holder of the
-- current claim may complete or release the record. Without it, a slow original finishing after
-- a takeover would overwrite (or delete) the record of the request that took over.
ALTER TABLE idempotency_keys ADD COLUMN claim_id uuid;
