import { ConflictError, excerpt, NotFoundError } from '@plugboard/sdk';

/** Nothing is kept under that approval id (or the id is not one a store hands out). */
export class UnknownApprovalError extends NotFoundError {
  readonly approvalId: string;

  constructor(id: string) {
    super(`no approval ${JSON.stringify(excerpt(id, 60))} is kept here`, { code: 'approval_unknown' });
    this.approvalId = id;
  }
}

/** Why a store refused to decide, use or hand out an approval (`ApprovalStateError.code`). */
export type ApprovalStateRefusal =
  | 'self_approval'
  | 'approval_pending'
  | 'approval_not_pending'
  | 'approval_expired'
  | 'approval_used'
  | 'approval_digest_mismatch';

/** The approval is not in a state that allows this: a person must look; trying again changes nothing. */
export class ApprovalStateError extends ConflictError {
  readonly reason: ApprovalStateRefusal;
  readonly approvalId: string;

  constructor(reason: ApprovalStateRefusal, id: string, message: string) {
    super(`approval ${id}: ${message}`, { code: reason, state: reason });
    this.reason = reason;
    this.approvalId = id;
  }
}
