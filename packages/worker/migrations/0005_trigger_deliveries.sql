-- The trigger receivers' state in queued mode (`@plugboard/triggers` with `queue`), shared by every
-- receiver behind a balancer: each accepted event (its dedupe record and its run's input until
-- the run is queued) and each request's receipt, in the platform's TriggerDelivery shape. The
-- event is keyed by a digest of the id the sender signed; the records and the ids kept have the
-- trigger's secrets hidden. Never a body, a signature nor a secret.

CREATE TABLE plugboard_trigger_events (
  trigger_id text NOT NULL,
  event_key text NOT NULL,
  delivery_id text NOT NULL UNIQUE,
  event_id text NOT NULL,
  execution_id text,
  received_at timestamptz NOT NULL,
  -- JSON text: a jsonb column would refuse a record holding \u0000, which a sender may send.
  records text NOT NULL,
  -- Its run is not queued yet: a receiver that starts queues it.
  pending boolean NOT NULL,
  PRIMARY KEY (trigger_id, event_key)
);
CREATE INDEX plugboard_trigger_events_pending ON plugboard_trigger_events (received_at) WHERE pending;
CREATE INDEX plugboard_trigger_events_received ON plugboard_trigger_events (trigger_id, received_at);

CREATE TABLE plugboard_trigger_deliveries (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  delivery_id text NOT NULL,
  trigger_id text NOT NULL,
  received_at timestamptz NOT NULL,
  status text NOT NULL CHECK (status IN ('accepted', 'duplicate', 'refused')),
  reason_code text,
  http_status integer,
  event_id text,
  event_type text,
  payload_sha256 text,
  size_bytes bigint,
  record_count integer,
  execution_id text
);
CREATE INDEX plugboard_trigger_deliveries_trigger ON plugboard_trigger_deliveries (trigger_id, id);
