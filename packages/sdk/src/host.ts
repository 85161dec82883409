/**
 * `@plugboard/sdk/host`: the machinery of whatever runs connectors (the runtime, the CLI, the
 * testing kit, the catalogue, a worker). What an author writes against, errors included, is in
 * `@plugboard/sdk` (src/index.ts); a host imports those from there.
 */
// What a declaration means: its retry policy, approval, effect and the hints a tool server publishes.
export { isImplemented, retryPolicy, needsApproval, approvalOf, effectOf, annotationsOf } from './definition/action.js';
export type { Declared, EffectFacts, ToolAnnotations } from './definition/action.js';
export { connectorProblems, PERIOD_MS } from './definition/connector.js';
// The catalogue's categories: each key and the label people read.
export { CATEGORIES } from './definition/categories.js';
// A run prepared once (its `binding.digest` is what an approval quotes), then run by the host.
export { prepareRun, runPrepared, passGate, passedGate, resumeFrom, UnknownActionError } from './run.js';
export type { PreparedAction, PreparedRun } from './run.js';
export type { ResolvedConnection } from './connection.js';
export type { RunSettings } from './run-options.js';
export type { ConnectorRunner, LocalRunner } from './runner.js';
// The executor: createExecutor composes its entry points, which a worker, a trigger receiver or
// an MCP server may call on a setup of their own (setUpExecutor).
export { createExecutor } from './executor.js';
export type { Executor } from './executor.js';
export { setUpExecutor } from './executor/setup.js';
export type { ExecutorOptions, ExecutorSetup, HostConnection } from './executor/setup.js';
export { prepareExecution } from './executor/preparation.js';
export { runSource, streamKey } from './executor/source.js';
export { runDestination } from './executor/destination.js';
export { listFieldOptions } from './executor/options-listing.js';
export { checkHostConnection } from './executor/connection-check.js';
export { UnknownConnectorError, IdempotencyKeyReusedError, IdempotencyUnsettledError } from './executor/errors.js';
// The codes an error answers to (its own and its family's), as the testing kit expects them.
export { errorCodes } from './errors.js';
export type { ExecutorErrorCode } from './executor/errors.js';
export type { PluginConnector } from './executor/runners.js';
export type { ExecuteRequest, CheckRequest, OptionsRequest, TriggerCallRequest } from './executor/requests.js';
// A trigger's lifecycle calls, each run as an action of its own (the executor's `callTrigger`).
export { callTrigger } from './executor/trigger-calls.js';
export { prepareTriggerCall, triggerCallKey, UnknownTriggerError } from './trigger-calls.js';
export type { TriggerCall, TriggerCalls } from './trigger-calls.js';
export type { ExecutionOutcome, DestinationOutcome, SourceOutcome, PreparedExecution } from './executor/outcomes.js';
export type { ExecutionEvent, EventBase } from './executor/events.js';
export { memoryStore, recordsEqual, recordAfterDecision } from './stores.js';
// Checkpoint versions: the declaration spelled out, and a checkpoint as a store keeps it.
export { checkpointDeclaration, checkpointFromStore, checkpointToStore } from './checkpoint.js';
export type { CheckpointDeclaration, StoredCheckpoint } from './checkpoint.js';
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
export { approvalDigest, canonicalJson } from './digest.js';
export type { ApprovalBinding, RunSubject } from './digest.js';
export {
  Redactor,
  REDACTED,
  isSecretKey,
  isFormatKey,
  findSecretKeys,
  normaliseKey,
  MIN_SECRET_LENGTH,
} from './secrets.js';
export { describeJsonType, formatJsonPath, jsonProblem, mapJson, MAX_JSON_DEPTH, someJsonString } from './json.js';
export type { JsonMapper, JsonPath, JsonProblem } from './json.js';
export { stderrSink } from './log.js';
// Ordering as the platform sorts (keys, names): the same in every locale.
export { compareText } from './order.js';
// The message a provider's error body carries, bounded.
export { providerMessage } from './http/classify.js';
// The public catalogue entry of a connector, as the catalogue and the standard suite build it.
export { catalogueEntry } from './catalogue-entry.js';
export type { PublicConnector, PublicOperation } from './catalogue-entry.js';
// Each action as a tool server needs it (schemas as JSON Schema, hints, approval), computed where the connector runs.
export { actionToolDescriptions, jsonSchemaOf } from './tool-description.js';
export type { ActionToolDescription, JsonSchema } from './tool-description.js';
export type { PublicAuthentication } from './auth/schemes/scheme-type.js';
export { isAddressRange } from './http/network-policy.js';
// The bound an incremental read asks the provider from (the standard suite checks a recorded second run against it).
export { newerThanBound } from './paginate/newer-than.js';
export type { NewerThan } from './definition/action.js';
// How a paged read ended, as a debug log entry names it.
export type { PagingEnd } from './paginate/paginator.js';
export { systemClock, manualClock, sleep } from './clock.js';
export type { Clock, ManualClock, Timer } from './clock.js';
// A transport with the host's clock, stages and OAuth2 token lifecycle.
export { createHostTransport } from './http/transport.js';
export type { HostTransportOptions } from './http/transport.js';
export type { RedisBudgetOptions, RedisBudgetsOption } from './http/redis-budget-state.js';
export type { CredentialOptions } from './auth/options.js';
// The stages a host adds to ctx.http's pipeline (createHostTransport({ stages })).
export type { Answer, Call, HttpStage, Send, StageRun } from './http/stages/stage.js';
export type { WriteGate } from './http/budget-rules.js';
export type { HeaderReader } from './http/headers.js';
// Credentials: checked per scheme before anything is sent; OAuth2 token sets kept by the host.
export { checkCredential, credentialSecrets, credentialExpiry, credentialSchema } from './credentials.js';
export type { CheckedCredential } from './auth/schemes/credential-reader.js';
// What a host asks of a connector's scheme: whether it is OAuth2 (a token lifecycle), whether a person signs in to it, how to say it.
export { isOAuth2Scheme, signsIn, describeScheme } from './auth/schemes/index.js';
export type { SchemeWords } from './auth/schemes/scheme-type.js';
export { heldTokenSource, memoryCredentialStore } from './tokens.js';
export type { CredentialStore, StoredTokens, StoredTokenSet, TokenSource } from './tokens.js';
// An OAuth2 connection's token lifecycle kept by the host for a run elsewhere (RunSettings.tokens there).
export { connectionTokenSource } from './auth/connection-source.js';
export type { ConnectionTokensRequest } from './auth/connection-source.js';
// A connection's authBaseUrl: the scheme's OAuth2 endpoints under a stand-in (sandbox only), as a sign-in needs them.
export { schemeAtAuthBase } from './auth/auth-base.js';
// The connection check: a connector's check(ctx), answered as the platform's LiveCheck.
export { checkConnection } from './check.js';
export type { CheckOptions, LiveCheck, LiveCheckState } from './check.js';
// Signing in (a CLI's `auth login`): the authorization request with PKCE S256 and state, and the code's exchange.
export { authorizationRequest } from './auth/authorize-url.js';
export type { AuthorizationRequest } from './auth/authorize-url.js';
export { exchangeAuthorizationCode } from './auth/login.js';
export type { CodeExchange } from './auth/login.js';
export type { AuthorizationCallback } from './auth/token-requests.js';
// Dynamic input options: a field's listing prepared as a run of its own (a plugin's process prepares it too).
export { prepareOptions, optionsKey, NoOptionsError } from './options.js';
export type { OptionsPage, OptionsQuery } from './definition/options.js';
// Rule 13, for the platform's senders and for receivers.
export { signDelivery, deliveryHeaders, verifyDelivery } from './deliveries/platform.js';
export type { DeliveryRefusal, DeliveryVerdict } from './deliveries/verdict.js';
// A Standard Webhooks delivery checked as a receiver does (a trigger's preset checks it so too).
export { verifyStandardWebhook } from './deliveries/standard-webhooks.js';
// The parts of a trigger's lifecycle calls and checks, as a receiver handles them.
export type {
  Subscribed,
  SubscribeTarget,
  WebhookDelivery,
  WebhookSubscription,
  WebhookVerdict,
} from './definition/trigger.js';
