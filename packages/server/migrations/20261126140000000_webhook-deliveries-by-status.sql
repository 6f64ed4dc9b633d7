-- Up Migration

-- The back-office's delivery log filters an endpoint's deliveries by status, newest first. With
-- webhook_deliveries_by_endpoint alone, asking for the few failed deliveries of an endpoint
-- that delivers walks every delivered one (or, for an endpoint that has been failing for
-- months, asking for the delivered ones walks every failure).
CREATE INDEX webhook_deliveries_by_endpoint_status
  ON webhook_deliveries (endpoint_id, status, id DESC);

-- Down Migration

DROP INDEX webhook_deliveries_by_endpoint_status;
