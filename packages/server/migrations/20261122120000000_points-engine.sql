-- Up Migration

-- Orders are stored by the request and processed by a worker: the customer row is the worker's
-- to create (a GET never writes, and registration stays one statement), so it is named by its
-- external id until then.
ALTER TABLE orders ALTER COLUMN customer_id DROP NOT NULL;
ALTER TABLE orders ADD COLUMN customer_external_id bigint;
UPDATE orders SET customer_external_id = (payload -> 'customer' ->> 'externalId')::bigint;
ALTER TABLE orders ALTER COLUMN customer_external_id SET NOT NULL;
ALTER TABLE orders ADD CONSTRAINT orders_processed_has_customer
  CHECK (status = 'pending' OR customer_id IS NOT NULL);
-- The latest refund state applied (null: never refunded).
ALTER TABLE orders ADD COLUMN refund_status text
  CHECK (refund_status IN ('partially_refunded', 'refunded', 'cancelled'));
ALTER TABLE orders ADD CONSTRAINT orders_deducted_within_earned
  CHECK (points_deducted >= 0 AND points_deducted <= coalesce(points_earned, 0));
-- Failed processing attempts: an order that keeps failing is left to its own job's retries,
-- out of other jobs' batches, so that it does not fail them all.
ALTER TABLE orders ADD COLUMN processing_failures integer NOT NULL DEFAULT 0;
CREATE INDEX orders_pending ON orders (store_id, id) WHERE status = 'pending';

-- A refund declared while its order is still pending stays pending: the order's processing
-- applies it. One declared for an order the store never registered is kept as 'unknown_order'
-- and applied too if the order comes after all (platforms deliver webhooks out of order).
CREATE INDEX refunds_unapplied ON refunds (store_id, order_external_id)
  WHERE processing_status = 'pending' OR outcome = 'unknown_order';

-- Webhooks: one delivery per event and subscribed endpoint, retried with backoff by the job
-- queue, given up after a bounded number of attempts.
CREATE TABLE webhook_deliveries (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id bigint NOT NULL REFERENCES outbox_events (id),
  endpoint_id bigint NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  last_status_code integer,
  last_error text,
  next_attempt_at timestamptz,
  delivered_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (event_id, endpoint_id)
);
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, id DESC);

-- Worker processes say they are alive; the jobs a dead one had locked are unlocked by the
-- others instead of waiting for the job queue's four-hour lock expiry.
CREATE TABLE worker_heartbeats (
  pool_id text PRIMARY KEY,
  -- The host (and pid namespace) where `pid` means something.
  hostname text NOT NULL,
  pid integer NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  seen_at timestamptz NOT NULL DEFAULT now()
);

-- Storefront caches (rules, rewards, widget configurations) and the credentials of every
-- authenticated request (stores and their API keys) live in every server process's memory.
-- Any change to what they hold, by the admin API, the CLI or plain SQL, tells every process
-- which store to forget: a revoked key stops working everywhere at once. pg_notify folds identical notifications of one transaction.
-- A row moved to another store notifies both; TRUNCATE (no rows to name) flushes everything.
CREATE FUNCTION notify_store_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  row_data jsonb;
  store text;
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM pg_notify('loyalty_store_changed', '');
    RETURN NULL;
  END IF;
  FOREACH row_data IN ARRAY ARRAY[
    CASE WHEN TG_OP IN ('UPDATE', 'DELETE') THEN to_jsonb(OLD) END,
    CASE WHEN TG_OP IN ('INSERT', 'UPDATE') THEN to_jsonb(NEW) END
  ] LOOP
    CONTINUE WHEN row_data IS NULL;
    IF TG_ARGV[0] = 'reward_id' THEN
      SELECT store_id::text INTO store FROM rewards WHERE id = (row_data ->> 'reward_id')::bigint;
    ELSE
      store := row_data ->> TG_ARGV[0];
    END IF;
    IF store IS NOT NULL THEN
      PERFORM pg_notify('loyalty_store_changed', store);
    END IF;
  END LOOP;
  RETURN NULL;
END;
$$;
CREATE TRIGGER stores_notify AFTER INSERT OR UPDATE OR DELETE ON stores
  FOR EACH ROW EXECUTE FUNCTION notify_store_changed('id');
CREATE TRIGGER api_keys_notify AFTER INSERT OR UPDATE OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION notify_store_changed('store_id');
CREATE TRIGGER attribution_rules_notify AFTER INSERT OR UPDATE OR DELETE ON attribution_rules
  FOR EACH ROW EXECUTE FUNCTION notify_store_changed('store_id');
CREATE TRIGGER clubs_notify AFTER INSERT OR UPDATE OR DELETE ON clubs
  FOR EACH ROW EXECUTE FUNCTION notify_store_changed('store_id');
CREATE TRIGGER rewards_notify AFTER INSERT OR UPDATE OR DELETE ON rewards
  FOR EACH ROW EXECUTE FUNCTION notify_store_changed('store_id');
CREATE TRIGGER voucher_versions_notify AFTER INSERT OR UPDATE OR DELETE ON voucher_versions
  FOR EACH ROW EXECUTE FUNCTION notify_store_changed('reward_id');
CREATE TRIGGER widget_configurations_notify
  AFTER INSERT OR UPDATE OR DELETE ON widget_configurations
  FOR EACH ROW EXECUTE FUNCTION notify_store_changed('store_id');

CREATE TRIGGER stores_notify_truncate AFTER TRUNCATE ON stores
  FOR EACH STATEMENT EXECUTE FUNCTION notify_store_changed('id');
CREATE TRIGGER api_keys_notify_truncate AFTER TRUNCATE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION notify_store_changed('store_id');
CREATE TRIGGER attribution_rules_notify_truncate AFTER TRUNCATE ON attribution_rules
  FOR EACH STATEMENT EXECUTE FUNCTION notify_store_changed('store_id');
CREATE TRIGGER clubs_notify_truncate AFTER TRUNCATE ON clubs
  FOR EACH STATEMENT EXECUTE FUNCTION notify_store_changed('store_id');
CREATE TRIGGER rewards_notify_truncate AFTER TRUNCATE ON rewards
  FOR EACH STATEMENT EXECUTE FUNCTION notify_store_changed('store_id');
CREATE TRIGGER voucher_versions_notify_truncate AFTER TRUNCATE ON voucher_versions
  FOR EACH STATEMENT EXECUTE FUNCTION notify_store_changed('reward_id');
CREATE TRIGGER widget_configurations_notify_truncate AFTER TRUNCATE ON widget_configurations
  FOR EACH STATEMENT EXECUTE FUNCTION notify_store_changed('store_id');

-- Down Migration

DROP TRIGGER stores_notify_truncate ON stores;
DROP TRIGGER api_keys_notify_truncate ON api_keys;
DROP TRIGGER attribution_rules_notify_truncate ON attribution_rules;
DROP TRIGGER clubs_notify_truncate ON clubs;
DROP TRIGGER rewards_notify_truncate ON rewards;
DROP TRIGGER voucher_versions_notify_truncate ON voucher_versions;
DROP TRIGGER widget_configurations_notify_truncate ON widget_configurations;
DROP TRIGGER widget_configurations_notify ON widget_configurations;
DROP TRIGGER voucher_versions_notify ON voucher_versions;
DROP TRIGGER rewards_notify ON rewards;
DROP TRIGGER clubs_notify ON clubs;
DROP TRIGGER attribution_rules_notify ON attribution_rules;
DROP TRIGGER api_keys_notify ON api_keys;
DROP TRIGGER stores_notify ON stores;
DROP FUNCTION notify_store_changed();
DROP TABLE worker_heartbeats;
DROP TABLE webhook_deliveries;
DROP INDEX refunds_unapplied;
DROP INDEX orders_pending;
ALTER TABLE orders DROP CONSTRAINT orders_deducted_within_earned;
ALTER TABLE orders DROP COLUMN refund_status;
ALTER TABLE orders DROP COLUMN processing_failures;
ALTER TABLE orders DROP CONSTRAINT orders_processed_has_customer;
ALTER TABLE orders DROP COLUMN customer_external_id;
ALTER TABLE orders ALTER COLUMN customer_id SET NOT NULL;
