-- Up Migration

-- Refunds are applied by their store's crediting job, in batches, as orders are credited: a
-- declaration no longer adds a job of its own. A batch takes the store's pending refunds in
-- the order they were declared; this index gives them without reading those applied.
--
-- A refund whose batch failed is applied alone by a job of its own (process-refund), with the
-- queue's retries; its failures are counted here, and batches leave it out from the first
-- (one bad declaration must not hold back the store's others), as orders' are.
--
-- The column's constant default is not written to the table's rows. The migrations run in one
-- transaction, so the index is built without CONCURRENTLY: declarations wait while it is built.
-- To build it beforehand without stopping them (after adding the column), then migrate:
--   ALTER TABLE refunds ADD COLUMN IF NOT EXISTS processing_failures integer NOT NULL DEFAULT 0;
--   CREATE INDEX CONCURRENTLY refunds_pending ON refunds (store_id, id)
--     WHERE processing_status = 'pending' AND processing_failures = 0;
-- and check that it is valid before migrating (a failed concurrent build leaves an invalid
-- index, which IF NOT EXISTS below would keep; drop it and build again):
--   SELECT indisvalid FROM pg_index WHERE indexrelid = 'refunds_pending'::regclass;
ALTER TABLE refunds ADD COLUMN IF NOT EXISTS processing_failures integer NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS refunds_pending ON refunds (store_id, id)
  WHERE processing_status = 'pending' AND processing_failures = 0;

-- Down Migration

DROP INDEX refunds_pending;
ALTER TABLE refunds DROP COLUMN processing_failures;
