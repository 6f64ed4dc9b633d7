-- Up Migration

-- How a store's clubs are reached and kept: the basis (points earned, or amount spent), the
-- period (rolling 12 months, calendar year, lifetime) and when a club is lost (immediately, or
-- at the end of its period). The defaults are the spec's behaviour.
ALTER TABLE program_settings
  ADD COLUMN club_basis text NOT NULL DEFAULT 'points-earned'
    CHECK (club_basis IN ('points-earned', 'amount-spent')),
  ADD COLUMN club_period text NOT NULL DEFAULT 'rolling-12-months'
    CHECK (club_period IN ('rolling-12-months', 'calendar-year', 'lifetime')),
  ADD COLUMN club_downgrade text NOT NULL DEFAULT 'immediately'
    CHECK (club_downgrade IN ('immediately', 'end-of-period')),
  -- Bumped by every change of the store's clubs or club policy: a review of all its customers
  -- started before one stops, the new one takes over.
  ADD COLUMN clubs_generation integer NOT NULL DEFAULT 0;

-- What the customer paid for an order: its totalPaid, or the sum of its lines' when the store
-- did not send one. Clubs by amount spent sum it; declared once here.
CREATE FUNCTION order_amount_spent(payload jsonb) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce((payload ->> 'totalPaid')::numeric,
    (SELECT sum((line ->> 'totalPaid')::numeric) FROM jsonb_array_elements(payload -> 'lines') line),
    0)
$$;

-- What refunds gave back of an order's amount (cumulative, in the order's currency): clubs by
-- amount spent count what the customer paid less this. A constant default: no table rewrite.
ALTER TABLE orders ADD COLUMN amount_refunded numeric(14, 2) NOT NULL DEFAULT 0
  CHECK (amount_refunded >= 0);
-- Orders refunded before: all of it for a full refund or a cancellation, the share of the points
-- taken back for a partial one (the points were computed on the amounts).
UPDATE orders SET amount_refunded = round(order_amount_spent(payload) * CASE
    WHEN refund_status IN ('refunded', 'cancelled') THEN 1
    WHEN coalesce(points_earned, 0) > 0 THEN least(points_deducted::numeric / points_earned, 1)
    ELSE 0 END, 2)
WHERE refund_status IS NOT NULL;

-- The club each customer holds, as last reviewed: CLUB_CHANGED is sent when a review finds
-- another, and a club kept until the end of its period is this one.
--   club_kept_until: until when the club is kept whatever the figure (end-of-period downgrades);
--   club_review_at: when time alone may change the club (the period moving on, a kept club's
--   period ending): the review job's queue.
--   club_id: no foreign key: a deleted club stays its members' club until they are reviewed
--   (CLUB_CHANGED then names it, from deleted_clubs), and a deletion writes no customer row.
ALTER TABLE customers
  ADD COLUMN club_id bigint,
  ADD COLUMN club_kept_until timestamptz,
  ADD COLUMN club_review_at timestamptz;

-- Clubs deleted, as they were: what CLUB_CHANGED says their members left.
CREATE TABLE deleted_clubs (
  id bigint PRIMARY KEY,
  store_id bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  name text NOT NULL,
  threshold integer NOT NULL,
  multiplier numeric(6, 3) NOT NULL,
  deleted_at timestamptz NOT NULL DEFAULT now()
);

-- Today's clubs, as the history computed them (points earned over the last 12 months), so that
-- the first review after this migration sends CLUB_CHANGED only for a real change. Reads the
-- last year of the ledger of the stores that have clubs, once.
WITH figures AS (
  SELECT t.customer_id, greatest(sum(t.points), 0) AS figure, min(t.created_at) AS oldest
  FROM ledger_transactions t
  WHERE t.store_id IN (SELECT store_id FROM clubs)
    AND t.kind IN ('earn', 'refund_deduction', 'referral_bonus', 'activity_bonus')
    AND t.created_at >= now() - interval '1 year'
  GROUP BY t.customer_id
)
UPDATE customers c SET club_id = reached.id,
  club_review_at = CASE WHEN reached.threshold > 0 THEN f.oldest + interval '1 year' END
FROM figures f
CROSS JOIN LATERAL (
  SELECT cl.id, cl.threshold FROM clubs cl
  WHERE cl.store_id = (SELECT store_id FROM customers WHERE id = f.customer_id)
    AND cl.threshold <= f.figure
  ORDER BY cl.threshold DESC LIMIT 1
) reached
WHERE c.id = f.customer_id;
-- A club at threshold 0 holds every other customer of its store.
UPDATE customers c SET club_id = cl.id
FROM clubs cl
WHERE cl.store_id = c.store_id AND cl.threshold = 0 AND c.club_id IS NULL;

-- After the backfill, which need not maintain them. The job finds what is due; neither column
-- changes with a balance, so balance updates stay HOT.
CREATE INDEX customers_club_review ON customers (club_review_at) WHERE club_review_at IS NOT NULL;

-- The club changes join the outbox's events.
ALTER TABLE outbox_events DROP CONSTRAINT outbox_events_type_check;
ALTER TABLE outbox_events ADD CONSTRAINT outbox_events_type_check CHECK (type IN (
  'ORDER_REGISTERED', 'POINTS_EARNED', 'ORDER_REFUNDED', 'POINTS_DEDUCTED', 'REWARD_OBTAINED',
  'POINTS_EXPIRING', 'POINTS_EXPIRED', 'CLUB_CHANGED'
)) NOT VALID;

-- Down Migration

-- The code before this migration has no such tasks: their queued jobs are failed, not left
-- failing. CLUB_CHANGED events already written stay (the older check is NOT VALID).
DO $$
BEGIN
  IF to_regclass('graphile_worker.jobs') IS NOT NULL THEN
    PERFORM graphile_worker.permanently_fail_jobs(
      ARRAY(SELECT id FROM graphile_worker.jobs
            WHERE task_identifier IN ('review-clubs', 'review-store-clubs')),
      'the clubs-over-a-period migration was rolled back');
  END IF;
END $$;

ALTER TABLE outbox_events DROP CONSTRAINT outbox_events_type_check;
ALTER TABLE outbox_events ADD CONSTRAINT outbox_events_type_check CHECK (type IN (
  'ORDER_REGISTERED', 'POINTS_EARNED', 'ORDER_REFUNDED', 'POINTS_DEDUCTED', 'REWARD_OBTAINED',
  'POINTS_EXPIRING', 'POINTS_EXPIRED'
)) NOT VALID;
DROP INDEX customers_club_review;
DROP TABLE deleted_clubs;
ALTER TABLE customers DROP COLUMN club_review_at, DROP COLUMN club_kept_until,
  DROP COLUMN club_id;
ALTER TABLE orders DROP COLUMN amount_refunded;
DROP FUNCTION order_amount_spent(jsonb);
ALTER TABLE program_settings DROP COLUMN clubs_generation, DROP COLUMN club_downgrade,
  DROP COLUMN club_period, DROP COLUMN club_basis;
