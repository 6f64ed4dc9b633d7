-- Up Migration

-- Back-office users. An admin with a store_id administers that store only; one without is an
-- admin of the whole service. Passwords are scrypt hashes (`scrypt$N$r$p$salt$hash`), never
-- the password. Disabling an admin refuses their tokens at once, even unexpired ones.
CREATE TABLE admin_users (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  email text NOT NULL UNIQUE CHECK (email = lower(email)),
  password_hash text NOT NULL CHECK (password_hash LIKE 'scrypt$%'),
  store_id bigint REFERENCES stores (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  disabled_at timestamptz
);

-- Down Migration

DROP TABLE admin_users;
