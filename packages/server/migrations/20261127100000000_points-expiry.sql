-- Up Migration

-- When a store's points expire: never (default), a lifetime in months from each earning, or
-- months of the customer's inactivity; with a warning some days before.
ALTER TABLE program_settings
  ADD COLUMN expiry_mode text NOT NULL DEFAULT 'off'
    CHECK (expiry_mode IN ('off', 'lifetime', 'inactivity')),
  ADD COLUMN expiry_months integer CHECK (expiry_months BETWEEN 1 AND 120),
  ADD COLUMN expiry_warning_days integer NOT NULL DEFAULT 30
    CHECK (expiry_warning_days BETWEEN 0 AND 365),
  ADD CONSTRAINT program_settings_expiry_months
    CHECK ((expiry_mode = 'off') = (expiry_months IS NULL));

-- The customer history reads a store's settings from every process's memory (as its clubs):
-- a change tells every process to forget them.
CREATE TRIGGER program_settings_notify AFTER INSERT OR UPDATE OR DELETE ON program_settings
  FOR EACH ROW EXECUTE FUNCTION notify_store_changed('store_id');
CREATE TRIGGER program_settings_notify_truncate AFTER TRUNCATE ON program_settings
  FOR EACH STATEMENT EXECUTE FUNCTION notify_store_changed('store_id');

-- Every credit is an earning lot from now on, not only the held ones: expiry spends the oldest
-- points first. What the customer has consumed (spent, had deducted or expired) is the lots'
-- sum less the balance, so spending never touches a lot: the oldest lots are the consumed ones.
--   earned_at: when the points were earned, by the service's clock (the lifetime runs from it);
--   warned_at: when the customer was warned of this lot's expiry (or the job found it spent);
--   expires_at: the date that warning gave, which stands whatever the settings become;
--   settled_at: when the expiry job dealt with it (expired what was left of it, if anything).
ALTER TABLE earning_lots
  ADD COLUMN earned_at timestamptz,
  ADD COLUMN warned_at timestamptz,
  ADD COLUMN expires_at timestamptz,
  ADD COLUMN settled_at timestamptz;
UPDATE earning_lots l SET earned_at = t.created_at
  FROM ledger_transactions t WHERE t.id = l.ledger_id;
INSERT INTO earning_lots
  (ledger_id, store_id, customer_id, order_id, points, available_at, released_at, earned_at)
SELECT t.id, t.store_id, t.customer_id, t.order_id, t.points, t.created_at, t.created_at,
       t.created_at
FROM ledger_transactions t
WHERE t.points > 0 AND NOT EXISTS (SELECT 1 FROM earning_lots l WHERE l.ledger_id = t.id);
ALTER TABLE earning_lots ALTER COLUMN earned_at SET NOT NULL;
-- The customer's lots in the order they are consumed.
CREATE INDEX earning_lots_by_customer ON earning_lots (customer_id, earned_at, ledger_id);
-- The expiry job's queues, read per store whose points expire: lots not yet warned, lots not
-- yet settled, oldest first.
CREATE INDEX earning_lots_unwarned ON earning_lots (store_id, earned_at) WHERE warned_at IS NULL;
CREATE INDEX earning_lots_unsettled ON earning_lots (store_id, earned_at)
  WHERE settled_at IS NULL;

-- The customer's last earning or spending, by the service's clock (inactivity expiry), and the
-- last time they were warned that points expire.
ALTER TABLE customers
  ADD COLUMN last_activity_at timestamptz,
  ADD COLUMN expiry_warned_at timestamptz;
UPDATE customers c SET last_activity_at = coalesce(
  (SELECT max(t.created_at) FROM ledger_transactions t WHERE t.customer_id = c.id), c.created_at);
ALTER TABLE customers ALTER COLUMN last_activity_at SET NOT NULL;
ALTER TABLE customers ALTER COLUMN last_activity_at SET DEFAULT now();
-- Not indexed: an index on it would cost every balance update its HOT update. The inactivity
-- job reads the customers of the stores using it.

-- The events of expiry join the outbox's.
ALTER TABLE outbox_events DROP CONSTRAINT outbox_events_type_check;
-- NOT VALID: the rows there are valid by the older check; no scan of the outbox under its lock.
ALTER TABLE outbox_events ADD CONSTRAINT outbox_events_type_check CHECK (type IN (
  'ORDER_REGISTERED', 'POINTS_EARNED', 'ORDER_REFUNDED', 'POINTS_DEDUCTED', 'REWARD_OBTAINED',
  'POINTS_EXPIRING', 'POINTS_EXPIRED'
)) NOT VALID;

-- Down Migration

ALTER TABLE outbox_events DROP CONSTRAINT outbox_events_type_check;
-- Events of expiry already written stay: the older check holds for the rows written from now on.
ALTER TABLE outbox_events ADD CONSTRAINT outbox_events_type_check CHECK (type IN (
  'ORDER_REGISTERED', 'POINTS_EARNED', 'ORDER_REFUNDED', 'POINTS_DEDUCTED', 'REWARD_OBTAINED'
)) NOT VALID;

ALTER TABLE customers DROP COLUMN expiry_warned_at;
ALTER TABLE customers DROP COLUMN last_activity_at;
DROP INDEX earning_lots_unsettled;
DROP INDEX earning_lots_unwarned;
DROP INDEX earning_lots_by_customer;
DELETE FROM earning_lots WHERE released_at IS NOT NULL AND available_at = earned_at
  AND NOT EXISTS (SELECT 1 FROM ledger_transactions t
                  WHERE t.id = earning_lots.ledger_id AND t.available_at IS NOT NULL);
ALTER TABLE earning_lots DROP COLUMN settled_at;
ALTER TABLE earning_lots DROP COLUMN expires_at;
ALTER TABLE earning_lots DROP COLUMN warned_at;
ALTER TABLE earning_lots DROP COLUMN earned_at;
DROP TRIGGER program_settings_notify_truncate ON program_settings;
DROP TRIGGER program_settings_notify ON program_settings;
ALTER TABLE program_settings DROP CONSTRAINT program_settings_expiry_months;
ALTER TABLE program_settings DROP COLUMN expiry_warning_days;
ALTER TABLE program_settings DROP COLUMN expiry_months;
ALTER TABLE program_settings DROP COLUMN expiry_mode;
