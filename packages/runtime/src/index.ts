export { loadPlugin, loadPlugins, loadPack, findPlugins, connectorOf, hostSdkVersion, modulesFolder } from './load.js';
export type { LoadedPlugin, FailedPlugin, LoadResult, LoadOptions, Pack, PluginSpec } from './load.js';
export { readManifest, checkSdkRange, sdkCompatible, PluginLoadError } from './manifest.js';
export type { PluginManifest } from './manifest.js';
export { canShareHostSdk } from './sdk-sharing.js';
export { memoryStore, fileStore } from './stores.js';
export type { CheckpointStore, IdempotencyStore, IdempotencyRecord, RunningRecord, SucceededRecord, UncertainRecord, Stores } from './stores.js';
export { checkApproval, ApprovalRefusedError } from './approvals.js';
export type { ApprovalDecision, ApprovalRefusal, ApprovalCheck } from './approvals.js';
export { createExecutor, streamKey, UnknownConnectorError, IdempotencyKeyReusedError, IdempotencyUnsettledError } from './executor.js';
export type {
  Executor,
  ExecutorOptions,
  ExecuteRequest,
  ExecutionOutcome,
  DestinationOutcome,
  SourceOutcome,
  ExecutionEvent,
  HostConnection,
  PreparedExecution,
} from './executor.js';
export { pluginsCommand, pluginsReport } from './commands.js';
export type { CommandIo, PluginsReport } from './commands.js';
