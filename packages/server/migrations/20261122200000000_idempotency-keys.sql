-- Up Migration

-- The Idempotency-Key of a POST, with the response it got. `scope` is who sent it (a store, a
-- customer of a store, an admin, or nobody for the public operation), so that two senders'
-- keys never meet. `fingerprint` is the SHA-256 of the request (method, path, revision, query,
-- body): the same key with another request is refused. A row is written "in_progress" before
-- the operation runs and "done" with the response once it answered; responses of 5xx are not
-- kept (the row is deleted) so that a retry runs again. The body is encrypted under the master
-- key: some responses show a secret once (API keys, webhook secrets, referral hashes). Rows
-- older than 24 hours are ignored and deleted by the workers' crontab.
CREATE TABLE idempotency_keys (
  scope text NOT NULL,
  key text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
  fingerprint bytea NOT NULL CHECK (length(fingerprint) = 32),
  state text NOT NULL DEFAULT 'in_progress' CHECK (state IN ('in_progress', 'done')),
  status smallint,
  headers jsonb,
  body bytea,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (scope, key),
  CHECK ((state = 'done') = (status IS NOT NULL AND headers IS NOT NULL AND body IS NOT NULL))
);

CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);

-- Down Migration

DROP TABLE idempotency_keys;
