-- Up Migration

-- A refund's deduction lowers its order's first lot that still holds points: `WHERE order_id
-- = $1 AND points > 0 ORDER BY ledger_id LIMIT 1`. With the order's index on order_id alone,
-- a prepared statement's generic plan can prefer the primary key's order and filter every lot
-- of every store on the way: where the statistics put more than a few lots on an order (they
-- estimated 40 per order on the benchmark's 26,000 lots, which have one or two each), it did,
-- and each refund read every lot (12.9 ms for 26,559 lots, 3.9 ms a refund on average over
-- 17,745 refunds in `BENCH_ONLY=writes`, pg_stat_statements), a time that grows with the
-- table. With ledger_id in the index, the order's lots come in that order from the index: only
-- the order's lots are read, whatever the plan or the statistics.
--
-- The migrations run in one transaction, so without CONCURRENTLY: writes of lots wait while it
-- is built, and reads of lots wait for the moment the old index is dropped. To build it
-- beforehand without stopping writes, then let this migration swap names:
--   CREATE INDEX CONCURRENTLY earning_lots_by_order_ordered
--     ON earning_lots (order_id, ledger_id) WHERE order_id IS NOT NULL;
-- and check that it is valid before migrating (a failed concurrent build leaves an invalid
-- index, which IF NOT EXISTS below would keep; drop it and build again):
--   SELECT indisvalid FROM pg_index WHERE indexrelid = 'earning_lots_by_order_ordered'::regclass;
CREATE INDEX IF NOT EXISTS earning_lots_by_order_ordered
  ON earning_lots (order_id, ledger_id) WHERE order_id IS NOT NULL;
DROP INDEX earning_lots_by_order;
ALTER INDEX earning_lots_by_order_ordered RENAME TO earning_lots_by_order;

-- Down Migration

CREATE INDEX earning_lots_by_order_unordered ON earning_lots (order_id) WHERE order_id IS NOT NULL;
DROP INDEX earning_lots_by_order;
ALTER INDEX earning_lots_by_order_unordered RENAME TO earning_lots_by_order;
