-- Up Migration
-- A form posted without a session keeps what was typed (DESIGN, "Submitting code the way people
-- do"; docs/decisions/web.md "A form sent while signed out"): its text fields wait here, named by
-- a secret in the browser's cookie (only its SHA-256 is stored), through the sign-in round trip;
-- /unsent then shows them with a button that sends them again. Files are not kept. Rows live ten
-- minutes; abandoned ones are swept at the next stash.
CREATE TABLE web_form_stashes (
  secret_hash  text PRIMARY KEY,
  -- The path the form was posted to, and the page it was on (same origin only).
  action       text NOT NULL,
  page         text NOT NULL,
  -- [[name, value], …] in the order posted; the CSRF token is not kept.
  fields       jsonb NOT NULL,
  had_files    boolean NOT NULL DEFAULT false,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL
);
CREATE INDEX web_form_stashes_expiry_idx ON web_form_stashes (expires_at);
