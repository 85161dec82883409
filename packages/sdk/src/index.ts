export { defineAction, retryPolicy, approvalOf, needsApproval, isImplemented } from './definition/action.js';
export type {
  Action,
  Approval,
  DestinationAction,
  Direction,
  Environment,
  Incremental,
  Page,
  RetryPolicy,
  SourceAction,
} from './definition/action.js';
export { defineConnector, connectorProblems, entityId, DefinitionError, PERIOD_MS } from './definition/connector.js';
export type { Connector, ConnectorDefinition, RateBudget, RatePeriod } from './definition/connector.js';
export { bearerToken, apiKeyHeader } from './definition/auth.js';
export type { AuthScheme } from './definition/auth.js';
export { CATEGORIES, isCategory } from './definition/categories.js';
export type { Category } from './definition/categories.js';
export type { ActionContext, SourceContext, ProgressEvent, ProgressUpdate } from './context.js';
export { checkConnectionSettings, resolveConnection } from './connection.js';
export type { ConnectionInput, ResolvedConnection, SecretResolver } from './connection.js';
export {
  runAction,
  runPrepared,
  prepareRun,
  passGate,
  passedGate,
  resumeFrom,
  writeAction,
  readAll,
  UnknownActionError,
  NotImplementedError,
} from './run.js';
export type { RunOptions, RunSettings, PreparedAction, PreparedRun } from './run.js';
export { localRunner } from './runner.js';
export type { ConnectorRunner, LocalRunner } from './runner.js';
export { ApprovalRequiredError, ApprovalRefusedError, checkApproval } from './approval.js';
export {
  createExecutor,
  streamKey,
  UnknownConnectorError,
  IdempotencyKeyReusedError,
  IdempotencyUnsettledError,
} from './executor.js';
export type {
  Executor,
  ExecutorOptions,
  ExecuteRequest,
  ExecutionOutcome,
  DestinationOutcome,
  SourceOutcome,
  ExecutionEvent,
  HostConnection,
  PluginConnector,
  PreparedExecution,
} from './executor.js';
export { memoryStore, recordsEqual, recordAfterDecision } from './stores.js';
export type {
  CheckpointStore,
  DecideOutcome,
  IdempotencyDecision,
  IdempotencyReport,
  IdempotencyStore,
  IdempotencyRecord,
  RunningRecord,
  SucceededRecord,
  UncertainRecord,
  Stores,
} from './stores.js';
export { settleIdempotencyKey, IdempotencySettleRefusedError, DEFAULT_SETTLE_MIN_AGE_MS } from './idempotency.js';
export type { SettleKeyOptions, SettleRefusal } from './idempotency.js';
export type { ApprovalDecision, ApprovalRefusal, ApprovalCheck } from './approval.js';
export * from './errors.js';
export { approvalDigest, canonicalJson } from './digest.js';
export { compareText, byKey } from './order.js';
export type { ApprovalBinding, RunSubject } from './digest.js';
export { Redactor, REDACTED, isSecretKey, findSecretKeys, normaliseKey } from './secrets.js';
export {
  CIRCULAR,
  describeJsonType,
  formatJsonPath,
  jsonProblem,
  mapJson,
  MAX_JSON_DEPTH,
  someJsonString,
} from './json.js';
export type { JsonMapper, JsonPath, JsonProblem } from './json.js';
export { excerpt, EXCERPT_LENGTH } from './excerpt.js';
export { cursorLoop } from './paging.js';
export type { CursorLoop } from './paging.js';
export { createLogger, stderrSink } from './log.js';
export type { Logger, LogEntry, LogLevel, LogSink } from './log.js';
export { createTransport, sharedTransport } from './http/transport.js';
export type { Transport, TransportOptions } from './http/transport.js';
export {
  addressRefusal,
  classifyAddress,
  describeAddressClass,
  isAddressRange,
  METADATA_ADDRESSES,
  NetworkPolicy,
} from './http/network-policy.js';
export type {
  AddressClass,
  AddressClassification,
  AddressEmbedding,
  AddressRefusal,
  NetworkOptions,
} from './http/network-policy.js';
export { BudgetRegistry } from './http/budget.js';
export type { Budget, BudgetState } from './http/budget-rules.js';
export type {
  BudgetBackend,
  BudgetEntry,
  BudgetKey,
  BudgetStateStore,
  ProbeClaim,
  WindowPlace,
} from './http/shared-budget.js';
export type { RedisBudgetOptions, RedisBudgetsOption } from './http/redis-budget-state.js';
export { DEFAULT_RETRY, DEFAULT_TIMEOUT_MS, DEFAULT_MAX_RETRY_AFTER_SECONDS } from './http/client.js';
export type { HttpClient, HttpRequest, HttpResponse, RequestOptions, RetrySettings } from './http/client.js';
export { classifyByStatus, quotaDetails, providerMessage } from './http/classify.js';
export type { ProviderFailure } from './http/classify.js';
export { parseRetryAfter, findRequestId } from './http/headers.js';
export { catalogueEntry, budgetOf } from './catalogue-entry.js';
export type { PublicConnector, PublicOperation, PublicAuthentication } from './catalogue-entry.js';
export { boundedIssues, MAX_ISSUES, zodIssues } from './validation.js';
export { type Clock, type ManualClock, type Timer, manualClock, sleep, systemClock } from './clock.js';
