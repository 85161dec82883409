import type { ApprovalDesk } from '../call.js';
import type { ApprovalStore } from './types.js';

/**
 * The approval desk of a tool server over an approval store: a call the gate refused becomes a
 * pending approval of exactly that call (lasting `ttlMs`, else the store's default); an agent's
 * `approvalId` becomes the decision the executor's one gate checks (decider other than
 * requester, digest equal, not expired), whose `use` the executor calls once the gate let the
 * call through and before anything is sent, so that the approval runs one call.
 */
export function approvalDesk(
  store: ApprovalStore,
  options: { ttlMs?: number; pageUrl?: (id: string) => string } = {},
): ApprovalDesk {
  return {
    async request({ tool: _tool, ...call }) {
      const approval = await store.request({ ...call, ...(options.ttlMs ? { ttlMs: options.ttlMs } : {}) });
      return {
        id: approval.id,
        expiresAt: approval.expiresAt,
        ...(options.pageUrl ? { url: options.pageUrl(approval.id) } : {}),
      };
    },
    decisionFor: (approvalId) => store.decisionFor(approvalId),
  };
}
