-- Up Migration

-- Ways to earn beyond orders: what the store gives for each kind of activity, and how often.
ALTER TABLE program_settings ADD COLUMN activities jsonb NOT NULL DEFAULT '[]'
  CHECK (jsonb_typeof(activities) = 'array');

-- Every activity a store reported, once per (store, the store's activity id): the first answer
-- is the answer to every later sending.
CREATE TABLE activities (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  store_id bigint NOT NULL REFERENCES stores (id),
  customer_id bigint NOT NULL REFERENCES customers (id),
  activity_id text NOT NULL,
  kind text NOT NULL,
  -- The name customers see, as the store's rule gave it then.
  label text NOT NULL DEFAULT '',
  outcome text NOT NULL CHECK (outcome IN ('credited', 'limit-reached', 'not-rewarded')),
  points integer NOT NULL DEFAULT 0 CHECK (points >= 0),
  occurred_at timestamptz,
  -- By the service's clock: the period a limit counts in.
  recorded_at timestamptz NOT NULL,
  UNIQUE (store_id, activity_id)
);
-- A customer's credits of a kind in a period: what limits count.
CREATE INDEX activities_credited ON activities (customer_id, kind, recorded_at)
  WHERE outcome = 'credited';

ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_kind_check;
-- NOT VALID: the ledger's rows are valid by the older check; no scan of it under its lock.
ALTER TABLE ledger_transactions ADD CONSTRAINT ledger_transactions_kind_check CHECK (kind IN (
  'earn', 'refund_deduction', 'reward_redemption', 'referral_bonus', 'manual_adjustment', 'expiry',
  'activity_bonus'
)) NOT VALID;
ALTER TABLE ledger_transactions ADD COLUMN activity_id bigint REFERENCES activities (id);
CREATE UNIQUE INDEX ledger_one_bonus_per_activity ON ledger_transactions (activity_id)
  WHERE kind = 'activity_bonus';

-- Down Migration

DROP INDEX ledger_one_bonus_per_activity;
ALTER TABLE ledger_transactions DROP COLUMN activity_id;
ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_kind_check;
ALTER TABLE ledger_transactions ADD CONSTRAINT ledger_transactions_kind_check CHECK (kind IN (
  'earn', 'refund_deduction', 'reward_redemption', 'referral_bonus', 'manual_adjustment', 'expiry'
)) NOT VALID;
DROP TABLE activities;
ALTER TABLE program_settings DROP COLUMN activities;
