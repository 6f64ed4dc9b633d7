-- Up Migration

-- The back-office lists a store's customers newest first and pages by id. Without this index a
-- small store's page walks the primary key backwards through every other store's customers.
CREATE INDEX customers_by_store ON customers (store_id, id);

-- Its search finds customers by the start of their email, in any case. A btree serves
-- `LIKE 'prefix%'` only under the C collation (not C.UTF-8, nor any other) or with the pattern
-- operator class, which compares bytes. That class also serves equality, so the index keeps its
-- name and goes on serving the look-ups of an exact address (claims, referrals) without a twin.
DROP INDEX customers_by_email;
CREATE INDEX customers_by_email ON customers (store_id, lower(email) text_pattern_ops);

-- Down Migration

DROP INDEX customers_by_email;
CREATE INDEX customers_by_email ON customers (store_id, lower(email));
DROP INDEX customers_by_store;
