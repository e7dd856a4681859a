-- Up Migration
-- Signing out ends the provider's session too (DESIGN, "Submitting code the way people do":
-- RP-initiated logout). The ID token the provider issued at sign-in is kept with the session as
-- the `id_token_hint` of the provider's end_session_endpoint; NULL for sessions started before.
ALTER TABLE web_sessions ADD COLUMN id_token text;
