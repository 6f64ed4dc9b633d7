-- Up Migration

-- A customer's row is rewritten by every credit, refund, claim and expiry, and none of those
-- writes an indexed column: with room left on its page, PostgreSQL updates it within the page
-- (a HOT update), with no new entry in any of the table's six indexes. Full
-- pages (the default) made a quarter of the expiry job's customer updates write an entry in
-- each, 15 % of the WAL it wrote. Pages written from now on keep 15 % free; existing ones get it
-- as they are rewritten (VACUUM FULL, or pg_repack without a lock, at the operator's choice).
ALTER TABLE customers SET (fillfactor = 85);

-- Down Migration

ALTER TABLE customers RESET (fillfactor);
