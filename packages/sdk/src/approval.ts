import type { ApprovalBinding } from './digest.js';
import { ConnectorError } from './errors.js';
import { excerpt } from './excerpt.js';

/**
 * The approval gate (platform rule 9 and `reviewedDigest`), the only one: every
 * caller's run passes it (`passGate` in run.ts). An action with approval
 * `always`, or `production` in production, runs only with an approval that
 * - was decided `approved` (not rejected),
 * - was decided by someone other than the person who requested it,
 * - quotes the digest of exactly what will run (connector and version, action, connection,
 *   environment, canonical input), and
 * - has not expired.
 * Anything else raises `ApprovalRefusedError`, an `ApprovalRequiredError` carrying the
 * digest to review, with the reason.
 */

/** The action needs an approval bound to this digest before it may run here. */
export class ApprovalRequiredError extends ConnectorError {
  readonly digest: string;
  readonly shortDigest: string;

  /** `binding`: the digest to review, as the gate computed it. */
  constructor(message: string, binding: Pick<ApprovalRequiredError, 'digest' | 'shortDigest'>) {
    super(message, { code: 'approval_required', retryable: false, platformStatus: 403 });
    this.digest = binding.digest;
    this.shortDigest = binding.shortDigest;
  }
}

/** An approval as the platform decided it, given to a run (`RunOptions.approval`) that needs one. */
export interface ApprovalDecision {
  /** The digest the approver reviewed (the governed approval's `binding.digest`, sent back as `reviewedDigest`). */
  digest: string;
  /** Who asked for the approval. */
  requestedBy: string;
  /** Who decided it; never the requester. */
  decidedBy: string;
  decision: 'approved' | 'rejected';
  /** When the approval lapses (ISO timestamp or Date); null when it does not. */
  expiresAt: string | Date | null;
  /** The platform's approval id, quoted in messages. */
  id?: string;
  /**
   * Called by the executor once the gate let a run through with this approval, before anything
   * is sent: the approval's keeper marks it used, so that one approval runs one call. A rejection
   * (the approval was used already) stops the run there. Never called for a run the gate refused.
   */
  use?: () => Promise<void>;
}

/** Why the gate refused an approval (`ApprovalRefusedError.reason`). */
export type ApprovalRefusal = 'missing' | 'incomplete' | 'rejected' | 'self_approval' | 'digest_mismatch' | 'expired';

/** The action needs an approval, and the one given (if any) does not allow this run. */
export class ApprovalRefusedError extends ApprovalRequiredError {
  readonly reason: ApprovalRefusal;
  readonly approvalId: string | undefined;

  constructor(
    reason: ApprovalRefusal,
    message: string,
    binding: Pick<ApprovalRequiredError, 'digest' | 'shortDigest'>,
    approvalId?: string,
  ) {
    super(message, binding);
    this.reason = reason;
    this.approvalId = approvalId;
  }
}

export interface ApprovalCheck {
  /** What runs, for messages, e.g. `descript media_imports.create in production`. */
  subject: string;
  binding: ApprovalBinding;
  /** The time to check the expiry against, in milliseconds since the epoch (a `Clock`'s `now()`). */
  now: number;
}

function person(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim().toLowerCase() : undefined;
}

function expiry(value: unknown): Date | null | undefined {
  if (value === null) return null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value;
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value)) {
    const date = new Date(value);
    return Number.isNaN(date.getTime()) ? undefined : date;
  }
  return undefined;
}

/** Throws `ApprovalRefusedError` unless the approval allows exactly this run now. */
export function checkApproval(approval: ApprovalDecision | undefined, check: ApprovalCheck): void {
  const { binding, subject, now } = check;
  const review = `review and approve digest ${binding.digest} (${binding.shortDigest})`;
  if (approval === undefined || approval === null) {
    throw new ApprovalRefusedError('missing', `${subject} needs an approval: ${review}`, binding);
  }
  const id = typeof approval.id === 'string' ? approval.id : undefined;
  const named = id ? `approval ${excerpt(id)}` : 'the approval';
  const refuse = (reason: ApprovalRefusal, why: string): never => {
    throw new ApprovalRefusedError(
      reason,
      `${subject}: ${named} does not allow this run: ${why}; ${review}`,
      binding,
      id,
    );
  };
  const requester = person(approval.requestedBy);
  const decider = person(approval.decidedBy);
  const expiresAt = expiry(approval.expiresAt);
  const missing = [
    typeof approval.digest === 'string' && approval.digest ? undefined : 'digest',
    requester ? undefined : 'requestedBy',
    decider ? undefined : 'decidedBy',
    approval.decision === 'approved' || approval.decision === 'rejected'
      ? undefined
      : "decision ('approved' or 'rejected')",
    expiresAt === undefined ? 'expiresAt (an ISO timestamp, or null when it does not expire)' : undefined,
  ].filter((field) => field !== undefined);
  if (missing.length > 0) refuse('incomplete', `it lacks a valid ${missing.join(', ')}`);
  if (approval.decision !== 'approved') refuse('rejected', `it was rejected by ${excerpt(approval.decidedBy.trim())}`);
  if (requester === decider) {
    refuse(
      'self_approval',
      `${excerpt(approval.decidedBy.trim())} approved their own request; an approval must be decided by someone other than the requester`,
    );
  }
  if (approval.digest !== binding.digest) {
    refuse(
      'digest_mismatch',
      `it approves digest ${excerpt(approval.digest)}, which is not the digest of what would run (the connector version, action, connection, environment or input differ)`,
    );
  }
  if (expiresAt !== null && expiresAt !== undefined && now >= expiresAt.getTime()) {
    refuse('expired', `it expired at ${expiresAt.toISOString()}`);
  }
}

/** Tells the approval's keeper that the gate let a run through with it, when the run needed one. */
export async function useApproval(needsApproval: boolean, approval: ApprovalDecision | undefined): Promise<void> {
  if (needsApproval) await approval?.use?.();
}
