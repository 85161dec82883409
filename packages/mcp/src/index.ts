export { MAX_TOOL_NAME, toolName } from './tool-name.js';
export { fileApprovalStore } from './approvals/file-store.js';
export { ApprovalStateError, UnknownApprovalError } from './approvals/errors.js';
export type { ApprovalStateRefusal } from './approvals/errors.js';
export type {
  ApprovalRequest,
  ApprovalStatus,
  ApprovalStore,
  ApprovalVerdict,
  PendingApproval,
} from './approvals/types.js';
export { postgresApprovalStore } from './approvals/postgres-store.js';
export { approvalPage } from './approvals/page.js';
export type { ApprovalPageOptions } from './approvals/page.js';
