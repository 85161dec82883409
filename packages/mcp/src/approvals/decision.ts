import type { ApprovalDecision } from '@plugboard/sdk';
import { ApprovalStateError } from './errors.js';
import type { ApprovalStore, PendingApproval } from './types.js';

/**
 * The executor's gate decides whether a decision allows a run (decider other than the requester,
 * digest equal, not expired): this only hands it over as kept. Its `use`, which the executor calls
 * once the gate let the run through, consumes the approval in the store, so it allows one run.
 */
export function decisionOf(approval: PendingApproval, store: Pick<ApprovalStore, 'use'>): ApprovalDecision {
  if (approval.status === 'pending' || approval.decidedBy === undefined)
    throw new ApprovalStateError(
      'approval_pending',
      approval.id,
      'nobody decided it yet; a person other than the requester decides it first',
    );
  const { id, digest, requestedBy, decidedBy, expiresAt } = approval;
  return {
    id,
    digest,
    requestedBy,
    decidedBy,
    decision: approval.status === 'rejected' ? 'rejected' : 'approved',
    expiresAt,
    use: async () => void (await store.use(id, digest)),
  };
}
