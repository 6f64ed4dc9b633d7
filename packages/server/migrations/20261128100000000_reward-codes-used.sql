-- Up Migration

-- A claim's code used by an order: the first registered order whose `discountCodes` names it
-- (in any case), and that order's date. A used code leaves the customer's list of codes
-- (GET /reward/codes/{externalId}); the claim itself, its points and its ledger entry stay.
-- Nullable without a default: adding the columns rewrites no row.
ALTER TABLE reward_claims ADD COLUMN used_at timestamptz;
ALTER TABLE reward_claims ADD COLUMN used_order_id bigint REFERENCES orders (id);
ALTER TABLE reward_claims ADD CONSTRAINT reward_claims_used
  CHECK ((used_at IS NULL) = (used_order_id IS NULL));

-- A customer's usable codes, newest first: the storefront's list reads them from this index,
-- and an order's codes are matched on it (a customer's few unused claims, never the store's).
-- Marking a code used takes it out of the index.
CREATE INDEX reward_claims_usable ON reward_claims (customer_id, created_at DESC)
  WHERE status = 'confirmed' AND used_at IS NULL;

-- Down Migration

DROP INDEX reward_claims_usable;
ALTER TABLE reward_claims DROP CONSTRAINT reward_claims_used;
ALTER TABLE reward_claims DROP COLUMN used_order_id;
ALTER TABLE reward_claims DROP COLUMN used_at;
