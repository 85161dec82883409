-- The approvals of the MCP server (`@plugboard/mcp`'s postgresApprovalStore): each pending
-- approval of one tool call's digest, the person who asked, and the decision of another person.
-- Every change is a compare-and-set on status; times come from the host's clock, never now().
-- Never a credential: the summary is what will happen, redacted by the server before it is kept.

CREATE TABLE plugboard_approvals (
  id text PRIMARY KEY,
  digest text NOT NULL,
  short_digest text NOT NULL,
  connector text NOT NULL,
  action text NOT NULL,
  environment text NOT NULL,
  summary text NOT NULL,
  requested_by text NOT NULL,
  -- requested_by trimmed and lower-cased, as the executor's gate compares people.
  requester_key text NOT NULL,
  requested_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'used')),
  decided_by text,
  decided_at timestamptz
);
CREATE INDEX plugboard_approvals_pending ON plugboard_approvals (digest, requester_key) WHERE status = 'pending';
CREATE INDEX plugboard_approvals_requested ON plugboard_approvals (requested_at DESC, id);
