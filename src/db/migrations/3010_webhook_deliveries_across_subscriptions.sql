-- Up Migration
-- Support's listing of deliveries across subscriptions (GET /api/v1/admin/webhooks/deliveries):
-- newest first in creation order, optionally one status (dead letters, retrying ones).
CREATE INDEX webhook_deliveries_seq_idx ON webhook_deliveries (seq DESC);
CREATE INDEX webhook_deliveries_status_seq_idx ON webhook_deliveries (status, seq DESC);
