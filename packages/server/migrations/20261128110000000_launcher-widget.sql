-- Up Migration

-- The launcher is a fourth widget configuration. The kind's check is the initial schema's,
-- unnamed, so PostgreSQL named it widget_configurations_kind_check.
ALTER TABLE widget_configurations DROP CONSTRAINT widget_configurations_kind_check;
ALTER TABLE widget_configurations ADD CONSTRAINT widget_configurations_kind_check
  CHECK (kind IN ('cart', 'product-points', 'program-presentation', 'launcher'));

-- The launcher's configuration is served with the referral programme's offer, from every
-- process's memory: a change to the programme must reach them all, as a widget's change does.
CREATE TRIGGER referral_programs_notify AFTER INSERT OR UPDATE OR DELETE ON referral_programs
  FOR EACH ROW EXECUTE FUNCTION notify_store_changed('store_id');
CREATE TRIGGER referral_programs_notify_truncate AFTER TRUNCATE ON referral_programs
  FOR EACH STATEMENT EXECUTE FUNCTION notify_store_changed('store_id');

-- Down Migration

DROP TRIGGER referral_programs_notify_truncate ON referral_programs;
DROP TRIGGER referral_programs_notify ON referral_programs;
DELETE FROM widget_configurations WHERE kind = 'launcher';
ALTER TABLE widget_configurations DROP CONSTRAINT widget_configurations_kind_check;
ALTER TABLE widget_configurations ADD CONSTRAINT widget_configurations_kind_check
  CHECK (kind IN ('cart', 'product-points', 'program-presentation'));
