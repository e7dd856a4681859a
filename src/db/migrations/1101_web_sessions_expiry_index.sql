-- Up Migration
-- The sweeper deletes web sessions a day past their absolute expiry (every session has one, at
-- most WEB_SESSION_ABSOLUTE_HOURS after sign-in, so revoked and idle ones go too): by this index.
CREATE INDEX web_sessions_absolute_expiry ON web_sessions (absolute_expires_at);
