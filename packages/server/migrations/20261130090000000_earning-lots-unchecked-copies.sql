-- Up Migration

-- An earning lot is its credit's entry in the ledger, kept for what the credit still holds
-- (pending, spent, expired): one statement writes both (appendLedgerEntries), the lot's store,
-- customer and order copied from the entry it has just inserted, and the ledger is
-- append-only. The lot's four foreign keys checked again, row by row, what the entry's own had
-- checked in the same statement: each check a query of its own, and a table with any
-- foreign key queues every row it writes for an after-trigger. Crediting a backlog of 20,000
-- orders, a worker went 4,503 → 4,829 orders a second without them (median of five drains of
-- one backlog each, alternated; bench/worker-variants.ts). What they guarded is asserted
-- instead by test/ledger-invariants.test.ts and by the benchmarks' credit checks: every lot
-- has its entry, of the same store, customer and order. The ledger keeps its own.
ALTER TABLE earning_lots
  DROP CONSTRAINT earning_lots_store_id_fkey,
  DROP CONSTRAINT earning_lots_customer_id_fkey,
  DROP CONSTRAINT earning_lots_order_id_fkey,
  DROP CONSTRAINT earning_lots_ledger_id_fkey;

-- Down Migration

ALTER TABLE earning_lots
  ADD CONSTRAINT earning_lots_store_id_fkey FOREIGN KEY (store_id) REFERENCES stores (id),
  ADD CONSTRAINT earning_lots_customer_id_fkey FOREIGN KEY (customer_id) REFERENCES customers (id),
  ADD CONSTRAINT earning_lots_order_id_fkey FOREIGN KEY (order_id) REFERENCES orders (id),
  ADD CONSTRAINT earning_lots_ledger_id_fkey FOREIGN KEY (ledger_id) REFERENCES ledger_transactions (id);
