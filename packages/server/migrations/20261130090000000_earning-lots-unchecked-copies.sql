-- Up Migration

-- An earning lot is its credit's entry in the ledger, kept for what the credit still holds
-- (pending, spent, expired): one statement writes both (appendLedgerEntries), the lot's store,
-- customer and order copied from the entry it has just inserted. The entry's own keys check
-- those rows, and nothing deletes a ledger entry, a customer, an order or a store. The lot's four
-- keys re-ran those checks row by row, each a query of its own, and kept every row the table
-- took queued for an after-trigger. Crediting a backlog of 20,000 orders, a worker went from
-- 4,503 to 4,829 orders a second without them, and from 4,358 to 4,624 in a second run (medians
-- of five drains each, alternated; bench/worker-variants.ts). test/ledger-invariants.test.ts and
-- the benchmarks' credit checks now check what the keys guarded: every lot has its entry, a
-- credit of the same store, customer and order, of at least the lot's points.
--
-- Dropping a foreign key locks the tables at both ends exclusively (stores, customers, orders,
-- ledger_transactions) for an instant: the migration waits behind a long transaction on them.
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
