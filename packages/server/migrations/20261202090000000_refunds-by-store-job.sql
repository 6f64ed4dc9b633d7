-- Up Migration

-- Refunds are applied by their store's crediting job, in batches, as orders are credited: a
-- declaration no longer adds a job of its own. A batch takes the store's pending refunds in
-- the order they were declared; refunds_pending gives them without reading those applied.
--
-- A refund whose batch failed is applied alone by a job of its own (process-refund), with the
-- queue's retries; its failures are counted in processing_failures, and batches leave it out
-- from the first (one bad declaration must not hold back the store's others), as orders' are,
-- with the order's other refunds (declarations are cumulative). refunds_failing gives those
-- orders to every batch: few rows, however many refunds are pending.
--
-- The migrations run in one transaction, so the indexes are built without CONCURRENTLY, and the
-- table is locked from the column's addition to the end (reads too) while refunds_failing's
-- build reads it. To do all of it beforehand without stopping anything, then migrate:
--   ALTER TABLE refunds ADD COLUMN IF NOT EXISTS processing_failures integer NOT NULL DEFAULT 0;
--   CREATE INDEX CONCURRENTLY refunds_pending ON refunds (store_id, id)
--     WHERE processing_status = 'pending';
--   CREATE INDEX CONCURRENTLY refunds_failing ON refunds (store_id, order_external_id)
--     WHERE processing_status = 'pending' AND processing_failures > 0;
-- (adding a column with a constant default writes no row: its lock is brief) and check that
-- both indexes are valid before migrating (a failed concurrent build leaves an invalid index,
-- which IF NOT EXISTS below would keep; drop it and build again):
--   SELECT indexrelid::regclass, indisvalid FROM pg_index
--   WHERE indexrelid IN ('refunds_pending'::regclass, 'refunds_failing'::regclass);
CREATE INDEX IF NOT EXISTS refunds_pending ON refunds (store_id, id)
  WHERE processing_status = 'pending';
ALTER TABLE refunds ADD COLUMN IF NOT EXISTS processing_failures integer NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS refunds_failing ON refunds (store_id, order_external_id)
  WHERE processing_status = 'pending' AND processing_failures > 0;

-- Down Migration

DROP INDEX IF EXISTS refunds_failing;
ALTER TABLE refunds DROP COLUMN processing_failures;
DROP INDEX IF EXISTS refunds_pending;
