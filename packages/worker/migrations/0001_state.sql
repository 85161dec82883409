-- The executor's state, shared by every machine of a fleet: the checkpoint of each source
-- stream, the record of each idempotency key and the operators' decisions on keys, and each
-- connection's OAuth2 token set, sealed (AES-256-GCM) by the host's key: never plaintext here.

CREATE TABLE plugboard_checkpoints (
  stream text PRIMARY KEY,
  checkpoint jsonb NOT NULL,
  saved_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE plugboard_idempotency_keys (
  key text PRIMARY KEY,
  record jsonb NOT NULL,
  saved_at timestamptz NOT NULL DEFAULT now()
);

-- Kept when the key is released and runs again: the history of a key, oldest first by id.
CREATE TABLE plugboard_idempotency_decisions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  key text NOT NULL,
  decision jsonb NOT NULL,
  saved_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX plugboard_idempotency_decisions_key ON plugboard_idempotency_decisions (key, id);

-- sealed: format byte, 12-byte IV, 16-byte GCM tag, then the encrypted token set (JSON);
-- the connection id is the associated data, so a row copied to another connection fails to open.
CREATE TABLE plugboard_credentials (
  connection_id text PRIMARY KEY,
  version integer NOT NULL CHECK (version > 0),
  sealed bytea NOT NULL,
  saved_at timestamptz NOT NULL DEFAULT now()
);
