import { InvalidInputError } from '@plugboard/sdk';
import { STATUSES } from './records.js';
import type { ApprovalStatus, PendingApproval } from './types.js';

export const MAX_LIST = 1000;

/** A checked listing: a known status, a limit of 1 to 1000 (default 100). */
export function listOptions(options: { status?: ApprovalStatus; limit?: number }): {
  status: ApprovalStatus | undefined;
  limit: number;
} {
  const { status, limit = 100 } = options;
  const issues = [
    status === undefined || STATUSES.includes(status)
      ? undefined
      : { path: 'status', message: `must be one of ${STATUSES.join(', ')}` },
    Number.isInteger(limit) && limit >= 1 && limit <= MAX_LIST
      ? undefined
      : { path: 'limit', message: `must be a whole number from 1 to ${MAX_LIST}` },
  ].filter((issue) => issue !== undefined);
  if (issues.length > 0) throw new InvalidInputError('approval listing', issues);
  return { status, limit };
}

/** Approvals of the (checked) status, newest first (then by id, so the order is stable), at most the limit. */
export function listed(
  approvals: PendingApproval[],
  { status, limit }: ReturnType<typeof listOptions>,
): PendingApproval[] {
  return approvals
    .filter((approval) => status === undefined || approval.status === status)
    .sort((a, b) => b.requestedAt.localeCompare(a.requestedAt) || a.id.localeCompare(b.id))
    .slice(0, limit);
}
