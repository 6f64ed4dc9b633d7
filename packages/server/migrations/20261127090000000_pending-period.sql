-- Up Migration

-- How a store's programme runs beyond the spec's defaults. No row: every default, which is the
-- spec's behaviour. Read by the order workers when they credit; nothing caches it.
CREATE TABLE program_settings (
  store_id bigint PRIMARY KEY REFERENCES stores (id) ON DELETE CASCADE,
  -- Days an order's points stay pending, from the order's date (0: spendable at once).
  pending_days integer NOT NULL DEFAULT 0 CHECK (pending_days BETWEEN 0 AND 365),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Points of the balance still pending: the balance counts them, claims cannot spend them.
-- Kept in step with the unreleased earning lots below, under the customer's row lock.
ALTER TABLE customers ADD COLUMN pending_points bigint NOT NULL DEFAULT 0
  CHECK (pending_points >= 0);

-- What each entry did to the pending points (a held earning: +points; a refund within the
-- period: minus what it took back from them), and, for a held earning, when it becomes
-- spendable. Facts about the entry: the ledger stays append-only.
ALTER TABLE ledger_transactions ADD COLUMN pending_points bigint NOT NULL DEFAULT 0;
ALTER TABLE ledger_transactions ADD COLUMN available_at timestamptz;

-- An earning held by the pending period, until the release job makes it spendable. `points` is
-- what is still pending of it: a refund within the period lowers it.
CREATE TABLE earning_lots (
  ledger_id bigint PRIMARY KEY REFERENCES ledger_transactions (id),
  store_id bigint NOT NULL REFERENCES stores (id),
  customer_id bigint NOT NULL REFERENCES customers (id),
  order_id bigint REFERENCES orders (id),
  points bigint NOT NULL CHECK (points >= 0),
  available_at timestamptz NOT NULL,
  released_at timestamptz
);
-- The release job's queue: lots still held, soonest first.
CREATE INDEX earning_lots_due ON earning_lots (available_at) WHERE released_at IS NULL;
-- A refund finds its order's lot.
CREATE INDEX earning_lots_by_order ON earning_lots (order_id) WHERE order_id IS NOT NULL;

-- Down Migration

DROP TABLE earning_lots;
ALTER TABLE ledger_transactions DROP COLUMN available_at;
ALTER TABLE ledger_transactions DROP COLUMN pending_points;
ALTER TABLE customers DROP COLUMN pending_points;
DROP TABLE program_settings;
