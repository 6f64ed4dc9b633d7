-- Up Migration

-- The programme overview (GET /admin/stores/{storeId}/overview) read every ledger entry of its
-- period and every customer of the store: on a store of 1M customers and 10M entries
-- (bench/growth.ts), the 30 days' sums by day and kind (795,000 entries) took 628 ms, the
-- members active in 30 days (their 485,000 distinct customers) 960 ms, the members and the
-- points outstanding (every customer) 208 ms. Here the figures are kept as the data is written,
-- so that the overview reads a few hundred rows whatever the store's size.
--
-- Nothing a writer does updates a shared row: a trigger appends each statement's change to a
-- `*_deltas` table (summed per statement: a crediting batch of 200 entries appends a row per
-- kind for its day, one for its hour, and one per hour its customers' last entries leave), and
-- the fold-overview-sums job moves them into the sums once a minute, alone. A per-store or per-day row updated by every entry would have made
-- every credit, refund and claim of a store wait for the one before to commit. The overview reads
-- the sums and the deltas not yet folded in one statement: a fold moves them in one statement too,
-- so that a reader sees them either side, never both or neither. Exact at every instant, with no
-- lag, whatever writes the rows, as long as it holds the customer's row lock while it writes
-- their ledger, as every writer of the service does (its balance update takes it).

-- A store's ledger by UTC day and kind: entries and their points.
CREATE TABLE ledger_day_sums (
  store_id bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  day date NOT NULL,
  kind text NOT NULL,
  entries bigint NOT NULL,
  points bigint NOT NULL,
  PRIMARY KEY (store_id, day, kind)
);
CREATE TABLE ledger_day_deltas (
  store_id bigint NOT NULL,
  day date NOT NULL,
  kind text NOT NULL,
  entries bigint NOT NULL,
  points bigint NOT NULL
);
CREATE INDEX ledger_day_deltas_by_store ON ledger_day_deltas (store_id, day);

-- Each customer's last ledger entry, by the entries' date: who is active. Not a column of
-- customers: indexed or not, a second write of that row for each entry. Updated in place (HOT:
-- no index holds the date), under the customer's row lock every writer of the ledger holds
-- already for the balance.
CREATE TABLE customer_last_entries (
  customer_id bigint PRIMARY KEY,
  store_id bigint NOT NULL,
  last_entry_at timestamptz NOT NULL
) WITH (fillfactor = 85);

-- A store's members (customers not erased) by the UTC hour of their last entry. The members
-- active since an instant are the hours after its own, plus the customers whose last entry is
-- in its hour after it (read from that hour of the ledger), whatever the store's size: counting
-- them in an index of last entries read 485,000 entries, 175 ms.
CREATE TABLE last_entry_hours (
  store_id bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  hour timestamptz NOT NULL,
  members bigint NOT NULL,
  PRIMARY KEY (store_id, hour)
);
CREATE TABLE last_entry_hour_deltas (
  store_id bigint NOT NULL,
  hour timestamptz NOT NULL,
  members bigint NOT NULL
);
CREATE INDEX last_entry_hour_deltas_by_store ON last_entry_hour_deltas (store_id, hour);

-- A store's members and the sum of its positive balances (erased customers' included).
CREATE TABLE customer_totals (
  store_id bigint PRIMARY KEY REFERENCES stores (id) ON DELETE CASCADE,
  members bigint NOT NULL,
  outstanding_points bigint NOT NULL
);
CREATE TABLE customer_total_deltas (
  store_id bigint NOT NULL,
  members bigint NOT NULL,
  outstanding_points bigint NOT NULL
);
CREATE INDEX customer_total_deltas_by_store ON customer_total_deltas (store_id);

-- From here to the commit, the ledger and the customers are written by nobody else: the
-- figures of existing stores below are read once the triggers count every later write. In the
-- order writers take them (a customer's row, then the ledger), so that none holds one while
-- waiting for the other. Reads go on.
LOCK TABLE customers, ledger_transactions IN SHARE ROW EXCLUSIVE MODE;

-- Once per statement appending to the ledger (which is append-only), in one statement: its
-- sums by day and kind; its customers' last entries; for those whose last entry moved to
-- another hour, one member less in the old hour and one more in the new, erased customers
-- aside. The customers' previous last entries are read in the statement's snapshot, before its
-- own upsert: the writer holds their rows' locks (for the balance), so no other statement
-- moves them meanwhile. Hours and days are cut by date_bin from a UTC midnight, whatever the
-- session's time zone. Its cost, in the backend's CPU time on the 10M-entry store: about 45 µs
-- a statement plus 15 µs a customer (a customer's update and one entry: 58 µs before, 115 µs
-- with both triggers; a batch of 20: 0.63 ms before, 1.1 ms), before the commit and the round
-- trips, which it does not add to.
CREATE FUNCTION ledger_sums_append() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH day_sums AS (
    INSERT INTO ledger_day_deltas (store_id, day, kind, entries, points)
    SELECT store_id, (day AT TIME ZONE 'UTC')::date, kind, entries, points
    FROM (
      SELECT store_id, date_bin('1 day', created_at, timestamptz '2000-01-01 00:00:00+00') AS day,
             kind, count(*) AS entries, sum(points) AS points
      FROM appended GROUP BY 1, 2, 3
    ) sums
  ), latest AS (
    SELECT customer_id, min(store_id) AS store_id, max(created_at) AS at
    FROM appended GROUP BY customer_id
  ), previous AS (
    SELECT l.customer_id, l.last_entry_at FROM customer_last_entries l
    WHERE l.customer_id IN (SELECT customer_id FROM latest)
  ), moved AS (
    INSERT INTO customer_last_entries AS l (customer_id, store_id, last_entry_at)
    SELECT customer_id, store_id, at FROM latest ORDER BY customer_id
    ON CONFLICT (customer_id) DO UPDATE SET last_entry_at = excluded.last_entry_at
      WHERE l.last_entry_at < excluded.last_entry_at
    RETURNING l.customer_id, l.store_id, l.last_entry_at
  ), members AS (
    SELECT moved.* FROM moved JOIN customers c ON c.id = moved.customer_id
    WHERE c.erased_at IS NULL
  )
  INSERT INTO last_entry_hour_deltas (store_id, hour, members)
  SELECT store_id, hour, sum(members) FROM (
    SELECT store_id, date_bin('1 hour', last_entry_at, timestamptz '2000-01-01 00:00:00+00')
             AS hour, 1 AS members
    FROM members
    UNION ALL
    SELECT m.store_id,
           date_bin('1 hour', p.last_entry_at, timestamptz '2000-01-01 00:00:00+00'), -1
    FROM members m JOIN previous p USING (customer_id)
  ) moves
  GROUP BY store_id, hour HAVING sum(members) <> 0;
  RETURN NULL;
END;
$$;
CREATE TRIGGER ledger_sums AFTER INSERT ON ledger_transactions
  REFERENCING NEW TABLE AS appended
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_sums_append();

-- Customers added or removed, once per statement (a store generated or imported adds them by
-- the hundred thousand). A customer with ledger entries is never removed (the ledger refers to
-- them): no last entry to take away.
CREATE FUNCTION customer_totals_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO customer_total_deltas (store_id, members, outstanding_points)
  SELECT store_id, count(*) FILTER (WHERE erased_at IS NULL), sum(greatest(balance, 0))
  FROM added GROUP BY store_id;
  RETURN NULL;
END;
$$;
CREATE TRIGGER customer_totals_added AFTER INSERT ON customers
  REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION customer_totals_added();

CREATE FUNCTION customer_totals_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO customer_total_deltas (store_id, members, outstanding_points)
  SELECT store_id, -count(*) FILTER (WHERE erased_at IS NULL), -sum(greatest(balance, 0))
  FROM removed GROUP BY store_id;
  RETURN NULL;
END;
$$;
CREATE TRIGGER customer_totals_removed AFTER DELETE ON customers
  REFERENCING OLD TABLE AS removed
  FOR EACH STATEMENT EXECUTE FUNCTION customer_totals_removed();

-- A customer's row is updated by every entry, mostly for nothing these figures read (reserved
-- and pending points, dates, clubs): per row, so that the WHEN clause, evaluated without
-- calling the function, leaves those alone (a statement trigger would copy every updated row;
-- one with a column list cannot have transition tables). An erasure takes the customer out of
-- their last entry's hour.
CREATE FUNCTION customer_totals_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.store_id = NEW.store_id THEN
    INSERT INTO customer_total_deltas (store_id, members, outstanding_points)
    VALUES (NEW.store_id, (NEW.erased_at IS NULL)::int - (OLD.erased_at IS NULL)::int,
            greatest(NEW.balance, 0) - greatest(OLD.balance, 0));
  ELSE
    INSERT INTO customer_total_deltas (store_id, members, outstanding_points)
    VALUES (OLD.store_id, -(OLD.erased_at IS NULL)::int, -greatest(OLD.balance, 0)),
           (NEW.store_id, (NEW.erased_at IS NULL)::int, greatest(NEW.balance, 0));
  END IF;
  IF (OLD.erased_at IS NULL) <> (NEW.erased_at IS NULL) THEN
    INSERT INTO last_entry_hour_deltas (store_id, hour, members)
    SELECT store_id, date_bin('1 hour', last_entry_at, timestamptz '2000-01-01 00:00:00+00'),
           CASE WHEN NEW.erased_at IS NULL THEN 1 ELSE -1 END
    FROM customer_last_entries WHERE customer_id = NEW.id;
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER customer_totals_changed AFTER UPDATE OF balance, erased_at, store_id ON customers
  FOR EACH ROW
  WHEN (OLD.store_id <> NEW.store_id
        OR (OLD.erased_at IS NULL) <> (NEW.erased_at IS NULL)
        OR greatest(OLD.balance, 0) <> greatest(NEW.balance, 0))
  EXECUTE FUNCTION customer_totals_changed();

-- A store's figures counted again from its ledger and its customers, in place of what the
-- triggers kept: existing stores' below, and stores written with the triggers off
-- (bench/store-generator.ts, through recountOverviewSums). Existing stores' figures, under the
-- lock taken above: nothing counted twice or missed. On the 10M-entry store of
-- bench/growth.ts this took 38 s (the ledger read twice, once by store and time, once by
-- customer), during which credits, claims and registrations wait.
CREATE FUNCTION recount_overview_sums(target bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  origin constant timestamptz := '2000-01-01 00:00:00+00';
BEGIN
  DELETE FROM ledger_day_deltas WHERE store_id = target;
  DELETE FROM ledger_day_sums WHERE store_id = target;
  INSERT INTO ledger_day_sums (store_id, day, kind, entries, points)
  SELECT store_id, (day AT TIME ZONE 'UTC')::date, kind, entries, points
  FROM (
    SELECT store_id, date_bin('1 day', created_at, origin) AS day, kind,
           count(*) AS entries, sum(points) AS points
    FROM ledger_transactions WHERE store_id = target
    GROUP BY 1, 2, 3
  ) sums;

  DELETE FROM customer_last_entries WHERE store_id = target;
  INSERT INTO customer_last_entries (customer_id, store_id, last_entry_at)
  SELECT customer_id, store_id, max(created_at) FROM ledger_transactions WHERE store_id = target
  GROUP BY customer_id, store_id;

  DELETE FROM last_entry_hour_deltas WHERE store_id = target;
  DELETE FROM last_entry_hours WHERE store_id = target;
  INSERT INTO last_entry_hours (store_id, hour, members)
  SELECT l.store_id, date_bin('1 hour', l.last_entry_at, origin), count(*)
  FROM customer_last_entries l JOIN customers c ON c.id = l.customer_id
  WHERE l.store_id = target AND c.erased_at IS NULL
  GROUP BY 1, 2;

  DELETE FROM customer_total_deltas WHERE store_id = target;
  DELETE FROM customer_totals WHERE store_id = target;
  INSERT INTO customer_totals (store_id, members, outstanding_points)
  SELECT target, count(*) FILTER (WHERE erased_at IS NULL), coalesce(sum(greatest(balance, 0)), 0)
  FROM customers WHERE store_id = target;
END;
$$;

SELECT recount_overview_sums(id) FROM stores;

-- Down Migration

DROP TRIGGER customer_totals_changed ON customers;
DROP TRIGGER customer_totals_removed ON customers;
DROP TRIGGER customer_totals_added ON customers;
DROP TRIGGER ledger_sums ON ledger_transactions;
DROP FUNCTION customer_totals_changed();
DROP FUNCTION customer_totals_removed();
DROP FUNCTION customer_totals_added();
DROP FUNCTION ledger_sums_append();
DROP FUNCTION recount_overview_sums(bigint);
DROP TABLE customer_total_deltas;
DROP TABLE customer_totals;
DROP TABLE last_entry_hour_deltas;
DROP TABLE last_entry_hours;
DROP TABLE customer_last_entries;
DROP TABLE ledger_day_deltas;
DROP TABLE ledger_day_sums;
