import type { ApprovalDecision } from '@plugboard/sdk';

/** Where an approval stands: waiting for a person, decided, or consumed by the one run it allowed. */
export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'used';

/** What the MCP server asks for when the executor's gate refused a call (`ApprovalRequiredError`). */
export interface ApprovalRequest {
  /** The digest of exactly that call, as the gate computed it (`sha256:` and 64 hex digits). */
  digest: string;
  /** Its first 12 hex digits, as the gate gave them. */
  shortDigest: string;
  connector: string;
  action: string;
  environment: string;
  /** What will happen, in words a person reads; redacted by the caller, at most 2000 characters. */
  summary: string;
  /** The identity the call came from (the agent's signed-in person). */
  requestedBy: string;
  /** How long a person has to decide, in milliseconds (default 15 minutes, at most 7 days). */
  ttlMs?: number;
}

/** An approval as a store keeps it. */
export interface PendingApproval {
  /** `apr_` and 128 random bits: not guessable. */
  id: string;
  digest: string;
  shortDigest: string;
  connector: string;
  action: string;
  environment: string;
  summary: string;
  requestedBy: string;
  /** ISO timestamps from the store's clock. */
  requestedAt: string;
  expiresAt: string;
  status: ApprovalStatus;
  decidedBy?: string;
  decidedAt?: string;
}

/** A person's decision on a pending approval. */
export interface ApprovalVerdict {
  decision: 'approved' | 'rejected';
  /** Who decides: never the requester (compared trimmed and case-insensitively, as the executor's gate does). */
  by: string;
}

/** The approvals of one place (a state folder, or the fleet's PostgreSQL), one contract for every kind. */
export interface ApprovalStore {
  /** A new pending approval, or the one the same requester already has pending for the same digest. */
  request(request: ApprovalRequest): Promise<PendingApproval>;
  /** The approval; `UnknownApprovalError` when there is none with that id. */
  get(id: string): Promise<PendingApproval>;
  /** Approvals, newest first, at most `limit` (default 100), of one status when given. */
  list(options?: { status?: ApprovalStatus; limit?: number }): Promise<PendingApproval[]>;
  /** Decides a pending approval that has not expired; refuses the requester (`self_approval`). */
  decide(id: string, verdict: ApprovalVerdict): Promise<PendingApproval>;
  /**
   * The decision for the executor's gate (`RunOptions.approval`); its `use` consumes the approval.
   * Refused typed for an unknown id and for one nobody decided yet (`approval_pending`).
   */
  decisionFor(id: string): Promise<ApprovalDecision>;
  /** Moves an approved approval of this digest to `used`, exactly once (`approval_used` after that). */
  use(id: string, digest: string): Promise<PendingApproval>;
}
