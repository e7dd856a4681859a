-- Up Migration
-- secret_prefix is a true leading part of the signing secret (spec: "leading part of the signing
-- secret"; DESIGN.md: no added characters). Rows written before stored it with a trailing '…' that
-- is not part of the secret (the prefix itself is at most 4 characters, at most a quarter of the
-- secret): drop it, which leaves the leading part.
UPDATE webhook_subscriptions SET secret_prefix = left(secret_prefix, -1) WHERE secret_prefix LIKE '%…';
