import type { ApprovalDecision } from '@plugboard/sdk';
import type { ApprovalDesk } from '../call.js';
import { ApprovalStoreError, type ApprovalStore } from './store.js';

/**
 * The approval desk of a tool server over a store: a call the gate refused becomes a pending
 * approval (lasting `ttlMs`, default an hour); an agent's `approvalId` becomes the decision the
 * executor's one gate checks (decider other than requester, digest equal, not expired), whose
 * `use` the executor calls once the gate let the call through, so that the approval runs once.
 */

export const DEFAULT_APPROVAL_TTL_MS = 60 * 60 * 1000;

export function approvalDesk(
  store: ApprovalStore,
  options: { ttlMs?: number; pageUrl?: (id: string) => string } = {},
): ApprovalDesk {
  return {
    async request(call) {
      const approval = await store.request(call, options.ttlMs ?? DEFAULT_APPROVAL_TTL_MS);
      return {
        id: approval.id,
        expiresAt: approval.expiresAt,
        ...(options.pageUrl ? { url: options.pageUrl(approval.id) } : {}),
      };
    },
    async decisionFor(approvalId): Promise<ApprovalDecision> {
      const approval = await store.get(approvalId);
      if (approval.status === 'pending')
        throw new ApprovalStoreError(
          'approval_pending',
          `approval ${approval.id} is not decided yet: a person other than ${approval.requestedBy} decides it first`,
        );
      if (approval.status === 'expired')
        throw new ApprovalStoreError(
          'approval_expired',
          `approval ${approval.id} expired at ${approval.expiresAt} before anyone decided it: call again for a new one`,
        );
      if (approval.status === 'used')
        throw new ApprovalStoreError(
          'approval_used',
          `approval ${approval.id} ran its call already: ask for a new one`,
        );
      return {
        id: approval.id,
        digest: approval.digest,
        requestedBy: approval.requestedBy,
        decidedBy: approval.decidedBy ?? '',
        decision: approval.status === 'rejected' ? 'rejected' : 'approved',
        expiresAt: approval.expiresAt,
        use: () => store.use(approval.id),
      };
    },
  };
}
