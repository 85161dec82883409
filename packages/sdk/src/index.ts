/**
 * `@plugboard/sdk`: what a connector author writes against and what the author's own tests
 * run. Whatever runs connectors (the runtime, the CLI, the testing kit, the catalogue, a
 * worker) takes its machinery from `@plugboard/sdk/host` (src/host.ts) and the rest from here.
 */
export { defineAction } from './definition/action.js';
export type {
  Action,
  ActionCommon,
  Approval,
  DestinationAction,
  Environment,
  Incremental,
  Page,
  RetryPolicy,
  SourceAction,
  VersionedCheckpoint,
} from './definition/action.js';
export { defineConnector, entityId, DefinitionError } from './definition/connector.js';
export type { Connector, ConnectorDefinition, RateBudget } from './definition/connector.js';
// Provider webhooks: subscribed, renewed and unsubscribed by the kit; deliveries become records.
export { defineTrigger } from './definition/trigger.js';
export type { Trigger, WebhookSignature } from './definition/trigger.js';
// Dynamic input options: an action's `options` by field, each listing `{ items, nextCursor }`.
export type { FieldOptions } from './definition/options.js';
// The auth schemes: one file each in auth/schemes/, with all the SDK does for that type.
export { bearerToken } from './auth/schemes/bearer.js';
export { apiKeyHeader } from './auth/schemes/api-key-header.js';
export { apiKeyQuery } from './auth/schemes/api-key-query.js';
export { basicAuth } from './auth/schemes/basic.js';
export { oauth2ClientCredentials } from './auth/schemes/oauth2-client-credentials.js';
export { oauth2AuthorizationCode } from './auth/schemes/oauth2-authorization-code.js';
export { customAuth } from './auth/schemes/custom.js';
export type {
  AuthScheme,
  AuthSchemeBase,
  ApiKeyHeaderScheme,
  ApiKeyQueryScheme,
  BasicScheme,
  BearerScheme,
  CustomScheme,
  OAuth2AuthorizationCodeScheme,
  OAuth2ClientCredentialsScheme,
  OAuth2SchemeBase,
  OAuth2SchemeOptions,
  SignedParts,
} from './definition/auth.js';
// What a host's resolver returns for each scheme.
export type { ConnectionCredential, OAuth2Credential } from './credentials.js';
export type { TokenSet } from './tokens.js';
export type { Category } from './definition/categories.js';
export type { ActionContext, SourceContext, ProgressUpdate, ProgressEvent } from './context.js';
export type {
  HttpClient,
  HttpRequest,
  HttpResponse,
  QueryValue,
  RequestOptions,
  RetrySettings,
} from './http/client.js';
export type { Logger, LogEntry, LogLevel, LogSink } from './log.js';
export { cursorLoop } from './paginate/cursor-loop.js';
// Pagination as data: `ctx.http.paginate(request, paginator)`.
export { cursorPaginator, nextUrlPaginator, linkHeaderPaginator } from './paginate/cursor.js';
export { offsetPaginator } from './paginate/offset.js';
export { pageNumberPaginator } from './paginate/page-number.js';
export type {
  CursorOptions,
  NextUrlOptions,
  OffsetOptions,
  PageNumberOptions,
  PagedOptions,
  ReadFrom,
} from './paginate/paged-options.js';
export type {
  Paginator,
  PageRequest,
  PageAnswer,
  RecordPage,
} from './paginate/paginator.js';
export {
  ConnectorError,
  InvalidInputError,
  ConnectionConfigError,
  ProviderRejectedError,
  AuthenticationError,
  PermissionError,
  NotFoundError,
  ConflictError,
  QuotaExhaustedError,
  RateLimitedError,
  ProviderUnavailableError,
  TimeoutError,
  NetworkError,
  SchemaMismatchError,
  CancelledError,
  PagingLoopError,
  AddressRefusedError,
  CredentialsExpiredError,
  CheckpointTooNewError,
  CheckpointMigrationError,
} from './errors.js';
export type { PlatformError, ConnectorErrorOptions, InputIssue, QuotaDetails } from './errors.js';
export { ApprovalRequiredError, ApprovalRefusedError } from './approval.js';
export type { ApprovalDecision, ApprovalRefusal } from './approval.js';
export { classifyByStatus } from './http/classify.js';
export type { ProviderFailure } from './http/classify.js';
export { zodIssues } from './validation.js';
export { excerpt } from './excerpt.js';
export { byKey } from './order.js';
export { classifyAddress, describeAddressClass } from './http/network-policy.js';
export type { AddressClass, AddressEmbedding } from './http/network-policy.js';
// An author's own tests run the connector against a local server and check its catalogue entry.
export { runAction, readAll, writeAction } from './run.js';
export type { RunOptions } from './run-options.js';
export type { ConnectionInput, SecretResolver } from './connection.js';
export { createTransport } from './http/transport.js';
export type { Transport, TransportOptions } from './http/transport.js';
export type { NetworkOptions } from './http/network-policy.js';
// What an action does to the world, apart from how its results come back.
export type { Effect } from './definition/action.js';
// The schemes providers sign their webhooks with (rule 13's own signing is the host's: `/host`).
export type { DeliveryRefusal } from './deliveries/verdict.js';
export { signStandardWebhook, standardWebhookSignature } from './deliveries/standard-webhooks.js';
export { hmacSignature } from './deliveries/hmac-signature.js';
export { slackSignature } from './deliveries/slack.js';
