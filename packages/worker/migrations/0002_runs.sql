-- The runs of the queue, one row each, in the platform's Execution shape: what ran (connector,
-- action, connection id), its status and counts, and the typed error's code and message when it
-- failed. Never a credential nor the input: a run names its connection, the worker resolves the secret.

CREATE TABLE plugboard_runs (
  id text PRIMARY KEY,
  status text NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  connector text NOT NULL,
  action text NOT NULL,
  connection_id text NOT NULL,
  direction text NOT NULL CHECK (direction IN ('source', 'destination')),
  correlation_id text NOT NULL,
  idempotency_key text,
  records_received integer NOT NULL DEFAULT 0,
  records_processed integer NOT NULL DEFAULT 0,
  records_failed integer NOT NULL DEFAULT 0,
  retry_count integer NOT NULL DEFAULT 0,
  error_code text,
  error_message text,
  started_at timestamptz,
  completed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX plugboard_runs_status ON plugboard_runs (status, created_at);
