-- The schedules of the fleet, one row each, in the platform's PollTrigger shape: a source of a
-- connector run over one connection every `interval_minutes`, its state after the last tick and
-- the run that tick queued. The connection's non-secret settings and the input are kept (rule 10
-- checked the settings); never a credential.

CREATE TABLE plugboard_schedules (
  poll_trigger_id text PRIMARY KEY,
  flow_id text NOT NULL,
  name text NOT NULL,
  connector text NOT NULL,
  operation_key text NOT NULL,
  connection_id text NOT NULL,
  connection jsonb NOT NULL,
  input jsonb NOT NULL,
  environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
  interval_minutes integer NOT NULL CHECK (interval_minutes > 0),
  status text NOT NULL DEFAULT 'active',
  state text NOT NULL DEFAULT 'waiting' CHECK (state IN ('waiting', 'submitted', 'skipped', 'failed')),
  state_message text,
  last_checked_at timestamptz,
  next_check_at timestamptz,
  last_run_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
