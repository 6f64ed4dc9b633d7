-- Up Migration

-- Claims ---------------------------------------------------------------------------------------
-- A claim holds its points while the platform is asked for the code: the hold is confirmed into
-- a reward_redemption ledger entry, or released (the ledger never sees a platform failure).
-- What a customer can spend is balance - reserved_points.
ALTER TABLE customers ADD COLUMN reserved_points bigint NOT NULL DEFAULT 0
  CHECK (reserved_points >= 0);

-- The code is generated before the platform is asked, so that whoever settles the claim (the
-- request, or the reconciliation of a crash) names the same code.
ALTER TABLE reward_claims ALTER COLUMN code SET NOT NULL;
CREATE UNIQUE INDEX reward_claims_code ON reward_claims (store_id, code);
ALTER TABLE reward_claims ADD COLUMN confirmed_at timestamptz;
ALTER TABLE reward_claims ADD COLUMN released_at timestamptz;
ALTER TABLE reward_claims ADD CONSTRAINT reward_claims_settled CHECK (
  (status = 'confirmed') = (confirmed_at IS NOT NULL)
  AND (status = 'released') = (released_at IS NOT NULL)
);

-- Referrals --------------------------------------------------------------------------------------
-- A store's referral programme: what the referrer earns when the referee's first order is
-- registered, and the discount code the referee gets.
CREATE TABLE referral_programs (
  store_id bigint PRIMARY KEY REFERENCES stores (id) ON DELETE CASCADE,
  active boolean NOT NULL DEFAULT true,
  referrer_bonus integer NOT NULL CHECK (referrer_bonus >= 0),
  referee_voucher_kind text NOT NULL
    CHECK (referee_voucher_kind IN ('fixed_amount', 'percentage', 'free_shipping')),
  referee_voucher_value numeric(12, 2) CHECK (referee_voucher_value >= 0),
  referee_voucher_currency char(3),
  referee_minimum_order_amount numeric(12, 2) CHECK (referee_minimum_order_amount >= 0),
  referee_validity_days integer CHECK (referee_validity_days >= 1),
  -- Where the invitation's link leads (the store's home page when null); it carries the hash.
  landing_url text CHECK (landing_url ~ '^https?://'),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (referee_voucher_kind = 'free_shipping' OR referee_voucher_value IS NOT NULL),
  CHECK (referee_voucher_kind <> 'percentage' OR referee_voucher_value <= 100),
  CHECK (referee_voucher_kind <> 'fixed_amount' OR referee_voucher_currency IS NOT NULL)
);

-- What the programme promised when the invitation left: later edits never change it.
ALTER TABLE referrals ADD COLUMN referrer_bonus integer NOT NULL DEFAULT 0
  CHECK (referrer_bonus >= 0);
ALTER TABLE referrals ADD COLUMN referee_voucher jsonb;
-- The referral hash, AES-256-GCM under the master key: the invitation job puts it in the link.
-- hash_digest (SHA-256) finds the referral; neither reveals the hash to a database dump.
ALTER TABLE referrals ADD COLUMN hash_sealed bytea;
ALTER TABLE referrals ADD COLUMN referee_code_expires_at timestamptz;
-- referee_code is generated with the referral and created on the platform on first request.
CREATE UNIQUE INDEX referrals_referee_code ON referrals (store_id, referee_code);

-- The sandbox platform ---------------------------------------------------------------------------
-- Codes of stores whose platform is the built-in sandbox (demos, tests): what a real platform
-- would hold.
CREATE TABLE sandbox_discount_codes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  store_id bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  code text NOT NULL,
  title text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('fixed_amount', 'percentage', 'free_shipping')),
  value numeric(12, 2),
  currency char(3),
  minimum_order_amount numeric(12, 2),
  customer_external_id bigint,
  customer_email text,
  usage_limit integer NOT NULL DEFAULT 1,
  starts_at timestamptz NOT NULL,
  expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (store_id, code)
);

-- Down Migration

DROP TABLE sandbox_discount_codes;
DROP INDEX referrals_referee_code;
ALTER TABLE referrals DROP COLUMN referee_code_expires_at;
ALTER TABLE referrals DROP COLUMN hash_sealed;
ALTER TABLE referrals DROP COLUMN referee_voucher;
ALTER TABLE referrals DROP COLUMN referrer_bonus;
DROP TABLE referral_programs;
ALTER TABLE reward_claims DROP CONSTRAINT reward_claims_settled;
ALTER TABLE reward_claims DROP COLUMN released_at;
ALTER TABLE reward_claims DROP COLUMN confirmed_at;
DROP INDEX reward_claims_code;
ALTER TABLE reward_claims ALTER COLUMN code DROP NOT NULL;
ALTER TABLE customers DROP COLUMN reserved_points;
