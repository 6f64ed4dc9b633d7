-- Up Migration

-- The codes a voucher version has issued or is issuing: its claims not given back (the count
-- the reward list reads, ISSUED in rewards.repository.ts). A claim of a version with a usage
-- limit counts them in the statement that locks the version, after the lock: a statement's own
-- snapshot is taken before it waits for the lock, blind to the claims committed meanwhile.
-- VOLATILE is what makes it right: a VOLATILE function's query takes a snapshot of its own,
-- a STABLE one would read the calling statement's.
CREATE FUNCTION voucher_codes_taken(voucher_version_id bigint) RETURNS bigint
  LANGUAGE sql VOLATILE
  AS $$
    SELECT count(*) FROM reward_claims c
    WHERE c.voucher_version_id = voucher_codes_taken.voucher_version_id AND c.status <> 'released'
  $$;

-- Down Migration

DROP FUNCTION voucher_codes_taken(bigint);
