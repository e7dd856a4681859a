-- Up Migration
-- Batched first attempts (docs/decisions/webhooks.md, "Batched first attempts"): when one dispatch
-- pass creates several deliveries, their first attempts run in one workflow
-- (webhook-delivery-batch-<first delivery id>) instead of one workflow each; a delivery whose first
-- attempt fails is handed over to its own webhook-delivery-<id> workflow for the timed retries.
-- The batch a delivery belongs to is stored with it, in the fan-out transaction, so the sweeper can
-- start a batch whose workflow never started and the batch's activity reads its members from here.
ALTER TABLE webhook_deliveries ADD COLUMN batch_workflow_id text;
CREATE INDEX webhook_deliveries_batch_idx ON webhook_deliveries (batch_workflow_id) WHERE batch_workflow_id IS NOT NULL;
