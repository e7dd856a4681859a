-- Up Migration
-- Each API process caches credential rows (src/auth/credential-cache.ts). Every change that can
-- turn a cached credential's answer (revoked, expiry, scopes, sandbox, agent, the owner's role) is
-- announced on `credential_changes` when its transaction commits, whoever made it (API, CLI, SQL);
-- last_used_at touches are not. Payload: the secret's hash, or '*' for a role change.
CREATE FUNCTION notify_credential_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'api_tokens' THEN
    PERFORM pg_notify('credential_changes', OLD.token_hash);
  ELSIF TG_TABLE_NAME = 'agent_keys' THEN
    PERFORM pg_notify('credential_changes', OLD.key_hash);
  ELSE
    PERFORM pg_notify('credential_changes', '*');
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER api_tokens_notify_change
  AFTER UPDATE OF revoked_at, expires_at, scopes, sandbox, agent_id, user_id, token_hash OR DELETE ON api_tokens
  FOR EACH ROW EXECUTE FUNCTION notify_credential_change();

CREATE TRIGGER agent_keys_notify_change
  AFTER UPDATE OF revoked_at, expires_at, agent_id, key_hash OR DELETE ON agent_keys
  FOR EACH ROW EXECUTE FUNCTION notify_credential_change();

-- An agent changing owner changes its keys' user; a role change changes every token's principal.
CREATE TRIGGER agents_notify_owner_change
  AFTER UPDATE OF owner_user_id ON agents
  FOR EACH ROW WHEN (OLD.owner_user_id IS DISTINCT FROM NEW.owner_user_id) EXECUTE FUNCTION notify_credential_change();

CREATE TRIGGER users_notify_role_change
  AFTER UPDATE OF role ON users
  FOR EACH ROW WHEN (OLD.role IS DISTINCT FROM NEW.role) EXECUTE FUNCTION notify_credential_change();

-- Down Migration
DROP TRIGGER users_notify_role_change ON users;
DROP TRIGGER agents_notify_owner_change ON agents;
DROP TRIGGER agent_keys_notify_change ON agent_keys;
DROP TRIGGER api_tokens_notify_change ON api_tokens;
DROP FUNCTION notify_credential_change();
