-- Up Migration

-- Stores and their credentials ---------------------------------------------------------------
-- Configuration rows (keys, rules, clubs, widgets, webhooks) go with their store; history rows
-- (customers, orders, refunds, rewards, claims, referrals, the ledger) keep it: a store with a
-- history is never deleted, and customers are erased by anonymisation, keeping the ledger's sums.

CREATE TABLE stores (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- The <store_reference> of the customer HMAC key: shared with the store's server only.
  reference text NOT NULL UNIQUE CHECK (reference ~ '^[A-Za-z0-9][A-Za-z0-9_-]{2,63}$'),
  -- A full origin, normalised (lower case, no trailing slash) so look-ups are exact.
  domain text NOT NULL UNIQUE CHECK (domain = lower(domain) AND domain ~ '^https?://[^/]+$'),
  name text NOT NULL DEFAULT '',
  language text NOT NULL DEFAULT 'en' CHECK (language ~ '^[a-z]{2}(-[A-Z]{2})?$'),
  currency char(3) NOT NULL DEFAULT 'EUR' CHECK (currency ~ '^[A-Z]{3}$'),
  branding_color text NOT NULL DEFAULT '',
  platform text NOT NULL DEFAULT 'sandbox'
    CHECK (platform IN ('sandbox', 'woocommerce', 'shopify', 'prestashop')),
  platform_url text,
  -- AES-256-GCM under the master key; never returned by any read.
  platform_credentials bytea,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  store_id bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  -- Public part of the key (`lk_<prefix>_...`), used to find the row without the secret.
  prefix text NOT NULL UNIQUE,
  -- The whole key, AES-256-GCM under the master key: HMAC checks need the plain key.
  secret bytea NOT NULL,
  label text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX api_keys_active_by_store ON api_keys (store_id) WHERE revoked_at IS NULL;

CREATE TABLE webhook_endpoints (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  store_id bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  url text NOT NULL CHECK (url ~ '^https?://'),
  -- Signing secret, AES-256-GCM under the master key.
  secret bytea NOT NULL,
  -- Empty: every event.
  events text[] NOT NULL DEFAULT '{}',
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_by_store ON webhook_endpoints (store_id) WHERE active;

-- Programme: clubs, attribution rules, rewards, widget configurations ------------------------

CREATE TABLE clubs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  store_id bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  name text NOT NULL,
  -- Points earned over the rolling last 12 months needed to belong.
  threshold integer NOT NULL CHECK (threshold >= 0),
  multiplier numeric(6, 3) NOT NULL DEFAULT 1 CHECK (multiplier >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (store_id, threshold)
);

CREATE TABLE attribution_rules (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  store_id bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('product', 'category', 'default')),
  -- Product id or category id in the store's platform; none for the default rule.
  target_id bigint,
  name text NOT NULL DEFAULT '',
  -- Points per unit of currency paid.
  rate numeric(12, 4) NOT NULL DEFAULT 0 CHECK (rate >= 0),
  -- Points added per item bought.
  points_per_item integer NOT NULL DEFAULT 0 CHECK (points_per_item >= 0),
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((kind = 'default') = (target_id IS NULL))
);
-- One active rule per product, per category, and one active default rule per store.
CREATE UNIQUE INDEX attribution_rules_one_active
  ON attribution_rules (store_id, kind, coalesce(target_id, -1)) WHERE active;

CREATE TABLE rewards (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  store_id bigint NOT NULL REFERENCES stores (id),
  name text NOT NULL,
  description text,
  image_url text,
  -- Cost in points.
  trigger_value integer NOT NULL CHECK (trigger_value > 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX rewards_by_store ON rewards (store_id, trigger_value);

-- Editing a voucher writes a new version; the current one has no superseded_at.
CREATE TABLE voucher_versions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  reward_id bigint NOT NULL REFERENCES rewards (id),
  version integer NOT NULL CHECK (version >= 1),
  kind text NOT NULL CHECK (kind IN ('fixed_amount', 'percentage', 'free_shipping')),
  value numeric(12, 2) CHECK (value >= 0),
  currency char(3),
  minimum_order_amount numeric(12, 2) CHECK (minimum_order_amount >= 0),
  validity_days integer CHECK (validity_days >= 1),
  usage_limit integer CHECK (usage_limit >= 1),
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  superseded_at timestamptz,
  UNIQUE (reward_id, version),
  CHECK (kind = 'free_shipping' OR value IS NOT NULL),
  CHECK (kind <> 'percentage' OR value <= 100),
  CHECK (kind <> 'fixed_amount' OR currency IS NOT NULL)
);
CREATE UNIQUE INDEX voucher_versions_current ON voucher_versions (reward_id)
  WHERE superseded_at IS NULL;

CREATE TABLE widget_configurations (
  store_id bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('cart', 'product-points', 'program-presentation')),
  -- Validated by the shared widget configuration schemas before it is written.
  config jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (store_id, kind)
);

-- Customers, orders, refunds, the ledger ------------------------------------------------------

CREATE TABLE customers (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  store_id bigint NOT NULL REFERENCES stores (id),
  external_id bigint NOT NULL CHECK (external_id >= 0),
  email text,
  first_name text,
  last_name text,
  language text,
  -- Sum of the customer's ledger, kept in step in the same transaction as every entry.
  balance bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- GDPR erasure anonymises the row and keeps the ledger's sums.
  erased_at timestamptz,
  UNIQUE (store_id, external_id)
);
CREATE INDEX customers_by_email ON customers (store_id, lower(email));

CREATE TABLE orders (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  store_id bigint NOT NULL REFERENCES stores (id),
  -- externalRef (2026-01-01) or externalId (2026-06-18 and later), as text.
  external_id text NOT NULL,
  external_reference text,
  customer_id bigint NOT NULL REFERENCES customers (id),
  currency char(3) NOT NULL,
  ordered_at timestamptz NOT NULL,
  -- The registration as validated, in the latest contract's shape.
  payload jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processed')),
  points_earned bigint,
  points_deducted bigint NOT NULL DEFAULT 0,
  -- The rules and club multiplier applied at earn time: later edits never change a refund.
  rule_snapshot jsonb,
  received_at timestamptz NOT NULL DEFAULT now(),
  processed_at timestamptz,
  UNIQUE (store_id, external_id)
);
CREATE INDEX orders_by_customer ON orders (customer_id, ordered_at DESC);

-- Every refund declaration as received (cumulative amounts), and what it did.
CREATE TABLE refunds (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  store_id bigint NOT NULL REFERENCES stores (id),
  order_external_id text NOT NULL,
  -- Null while the order is unknown to the store (logged, answered 201).
  order_id bigint REFERENCES orders (id),
  status text NOT NULL CHECK (status IN ('partially_refunded', 'refunded', 'cancelled')),
  credit_note_id text,
  payload jsonb NOT NULL,
  processing_status text NOT NULL DEFAULT 'pending'
    CHECK (processing_status IN ('pending', 'processed')),
  outcome text CHECK (outcome IN ('deducted', 'no_change', 'lower_than_applied', 'unknown_order')),
  points_deducted bigint,
  received_at timestamptz NOT NULL DEFAULT now(),
  processed_at timestamptz
);
CREATE INDEX refunds_by_order ON refunds (store_id, order_external_id, id);

CREATE TABLE referrals (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  store_id bigint NOT NULL REFERENCES stores (id),
  referrer_customer_id bigint NOT NULL REFERENCES customers (id),
  -- Lower-cased invited address: one referral per address and store, ever.
  email text NOT NULL CHECK (email = lower(email)),
  first_name text,
  last_name text,
  language text,
  -- SHA-256 of the referral hash given to the invited person: a dump does not reveal it.
  hash_digest bytea NOT NULL UNIQUE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'completed')),
  referee_customer_id bigint REFERENCES customers (id),
  referee_code text,
  referee_code_issued_at timestamptz,
  invitation_sent_at timestamptz,
  completed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (store_id, email)
);

CREATE TABLE reward_claims (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  store_id bigint NOT NULL REFERENCES stores (id),
  customer_id bigint NOT NULL REFERENCES customers (id),
  reward_id bigint NOT NULL REFERENCES rewards (id),
  voucher_version_id bigint NOT NULL REFERENCES voucher_versions (id),
  points bigint NOT NULL CHECK (points > 0),
  -- reserved: points held, platform asked; confirmed: code issued; released: points given back.
  status text NOT NULL DEFAULT 'reserved' CHECK (status IN ('reserved', 'confirmed', 'released')),
  code text,
  expires_at timestamptz,
  failure_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX reward_claims_reserved ON reward_claims (created_at) WHERE status = 'reserved';
CREATE INDEX reward_claims_by_voucher ON reward_claims (voucher_version_id) WHERE status <> 'released';

-- Append-only: every change of a balance is one row; the balance is their sum.
CREATE TABLE ledger_transactions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  store_id bigint NOT NULL REFERENCES stores (id),
  customer_id bigint NOT NULL REFERENCES customers (id),
  kind text NOT NULL CHECK (kind IN (
    'earn', 'refund_deduction', 'reward_redemption', 'referral_bonus', 'manual_adjustment', 'expiry'
  )),
  points bigint NOT NULL CHECK (points <> 0),
  balance_after bigint NOT NULL,
  order_id bigint REFERENCES orders (id),
  refund_id bigint REFERENCES refunds (id),
  claim_id bigint REFERENCES reward_claims (id),
  referral_id bigint REFERENCES referrals (id),
  note text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_by_customer ON ledger_transactions (customer_id, id DESC);
-- Jobs run at least once: each cause writes its transaction once, whatever the retries.
CREATE UNIQUE INDEX ledger_one_earn_per_order ON ledger_transactions (order_id)
  WHERE kind = 'earn';
CREATE UNIQUE INDEX ledger_one_deduction_per_refund ON ledger_transactions (refund_id)
  WHERE kind = 'refund_deduction';
CREATE UNIQUE INDEX ledger_one_redemption_per_claim ON ledger_transactions (claim_id)
  WHERE kind = 'reward_redemption';
CREATE UNIQUE INDEX ledger_one_bonus_per_referral ON ledger_transactions (referral_id)
  WHERE kind = 'referral_bonus';

CREATE FUNCTION ledger_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger_transactions is append-only: write a new transaction instead';
END;
$$;
CREATE TRIGGER ledger_append_only BEFORE UPDATE OR DELETE ON ledger_transactions
  FOR EACH ROW EXECUTE FUNCTION ledger_is_append_only();

-- Events: written in the same transaction as the change, delivered to webhooks afterwards.
CREATE TABLE outbox_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  store_id bigint NOT NULL REFERENCES stores (id),
  type text NOT NULL CHECK (type IN (
    'ORDER_REGISTERED', 'POINTS_EARNED', 'ORDER_REFUNDED', 'POINTS_DEDUCTED', 'REWARD_OBTAINED'
  )),
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  dispatched_at timestamptz
);
CREATE INDEX outbox_undispatched ON outbox_events (id) WHERE dispatched_at IS NULL;

-- Down Migration

DROP TABLE outbox_events;
DROP TRIGGER ledger_append_only ON ledger_transactions;
DROP FUNCTION ledger_is_append_only();
DROP TABLE ledger_transactions;
DROP TABLE reward_claims;
DROP TABLE referrals;
DROP TABLE refunds;
DROP TABLE orders;
DROP TABLE customers;
DROP TABLE widget_configurations;
DROP TABLE voucher_versions;
DROP TABLE rewards;
DROP TABLE attribution_rules;
DROP TABLE clubs;
DROP TABLE webhook_endpoints;
DROP TABLE api_keys;
DROP TABLE stores;
