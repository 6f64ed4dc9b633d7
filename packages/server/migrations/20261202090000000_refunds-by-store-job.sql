-- Up Migration

-- Refunds are applied by their store's crediting job, in batches, as orders are credited: a
-- declaration no longer adds a job of its own. A batch takes the store's pending refunds in
-- the order they were declared; this index gives them without reading those applied.
--
-- The migrations run in one transaction, so the index is built without CONCURRENTLY: refunds
-- are declared and applied only once it is built (reading them goes on meanwhile). To build it
-- beforehand without stopping them, then migrate:
--   CREATE INDEX CONCURRENTLY refunds_pending ON refunds (store_id, id)
--     WHERE processing_status = 'pending';
-- and check that it is valid before migrating (a failed concurrent build leaves an invalid
-- index, which IF NOT EXISTS below would keep; drop it and build again):
--   SELECT indisvalid FROM pg_index WHERE indexrelid = 'refunds_pending'::regclass;
CREATE INDEX IF NOT EXISTS refunds_pending ON refunds (store_id, id)
  WHERE processing_status = 'pending';

-- A refund whose batch failed is applied alone by a job of its own (process-refund), with the
-- queue's retries; its failures are counted here, and batches leave it out from the first (one
-- bad declaration must not hold back the store's others), as orders' are. Added last: adding a
-- column locks the table against reads too, until the migration commits. Its constant default
-- is not written to the table's rows.
ALTER TABLE refunds ADD COLUMN processing_failures integer NOT NULL DEFAULT 0;

-- Down Migration

ALTER TABLE refunds DROP COLUMN processing_failures;
DROP INDEX refunds_pending;
