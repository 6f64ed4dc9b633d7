-- Up Migration

-- Refunds are applied by their store's crediting job, in batches, as orders are credited: a
-- declaration no longer adds a job of its own. A batch takes the store's pending refunds in
-- the order they were declared; this index gives them without reading those applied.
--
-- A refund whose batch failed is applied alone by a job of its own (process-refund), with the
-- queue's retries; its failures are counted here, and batches leave it out from the first
-- (one bad declaration must not hold back the store's others), as orders' do.
ALTER TABLE refunds ADD COLUMN processing_failures integer NOT NULL DEFAULT 0;
CREATE INDEX refunds_pending ON refunds (store_id, id)
  WHERE processing_status = 'pending' AND processing_failures = 0;

-- Down Migration

DROP INDEX refunds_pending;
ALTER TABLE refunds DROP COLUMN processing_failures;
