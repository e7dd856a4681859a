-- Up Migration
-- People signed in on the web (issue 21, docs/decisions/web.md). Only the SHA-256 of a session's
-- secret is kept (the cookie holds the secret): a copy of this table signs nobody in. A session ends
-- when revoked (sign out, sign out everywhere), after its idle time without a request, or at its
-- absolute expiry, whichever comes first.
CREATE TABLE web_sessions (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  secret_hash         text NOT NULL UNIQUE,
  user_id             uuid NOT NULL REFERENCES users(id),
  -- the operator decision taken at sign-in (like a session JWT's, fixed for the session's life)
  role                text NOT NULL CHECK (role IN ('user', 'admin')),
  created_at          timestamptz NOT NULL DEFAULT now(),
  last_seen_at        timestamptz NOT NULL DEFAULT now(),
  absolute_expires_at timestamptz NOT NULL,
  revoked_at          timestamptz
);
CREATE INDEX web_sessions_user ON web_sessions (user_id) WHERE revoked_at IS NULL;

-- A sign-in under way: what the callback must check (state, nonce) and prove (the PKCE verifier),
-- keyed by the hash of a short-lived cookie, used once.
CREATE TABLE web_sign_ins (
  secret_hash    text PRIMARY KEY,
  state          text NOT NULL,
  nonce          text NOT NULL,
  code_verifier  text NOT NULL,
  return_to      text NOT NULL,
  expires_at     timestamptz NOT NULL
);
