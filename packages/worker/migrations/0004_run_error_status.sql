-- The provider's HTTP status of a failed run's typed error, when the provider answered: a
-- follower tells a refusal (4xx, fix something) from a failure worth retrying, as `run` does.

ALTER TABLE plugboard_runs ADD COLUMN error_status integer;
