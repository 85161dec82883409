export { MAX_TOOL_NAME, toolName } from './tool-name.js';
export { actionTools, CALL_ARGUMENTS } from './tools.js';
export type { ActionTool, DescribedTools, JsonSchema, ToolAnnotations } from './tools.js';
export { callTool } from './call.js';
export type { ApprovalDesk, CallContext, PendingCall, ToolHost, ToolResult } from './call.js';
export { CALL_TOOL, DEFAULT_MAX_TOOLS, mcpServer, SEARCH_TOOL } from './server.js';
export type { ServerOptions } from './server.js';
export { DEFAULT_MAX_BODY_BYTES, MCP_PATH, serveHttp, serveStdio } from './serve.js';
export type { Authenticate, HttpOptions, StdioOptions, ToolServerOptions } from './serve.js';
export { decodeCursor, encodeCursor, MAX_CURSOR_CHARS } from './cursor.js';
export { MAX_MATCHES, searchTools } from './search.js';
export { approvalDesk } from './approvals/desk.js';
export { canonicalResource, protectedResource } from './oauth/protected-resource.js';
export type { ProtectedResource, ProtectedResourceOptions } from './oauth/protected-resource.js';
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
export { APPROVALS_PATH, approvalSite, SIGN_IN_PATH } from './approvals/site.js';
export type { ApprovalSite, ApprovalSiteOptions } from './approvals/site.js';
export { pageSignIn } from './oauth/page-sign-in.js';
export type { PageSignIn, PageSignInOptions } from './oauth/page-sign-in.js';
