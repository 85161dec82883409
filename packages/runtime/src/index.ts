export { loadPlugin, loadPlugins, loadPack } from './load.js';
export type { LoadedPlugin, FailedPlugin, LoadResult, LoadOptions, Pack, PluginSpec } from './load.js';
export { PluginLoadError } from './manifest.js';
export type { PluginManifest } from './manifest.js';
export { fileCredentialStore, fileStore } from './stores.js';
export { pluginsReport } from './report.js';
export type { PluginsReport, ReportOptions } from './report.js';
export { describePlugin, describePlugins, PluginKilledError, startPlugin, startPlugins } from './isolated.js';
export type { SharedRedis } from './protocol.js';
export type {
  DescribedAction,
  IsolatedPlugin,
  IsolatedPlugins,
  IsolationLimits,
  IsolationOptions,
  KillReason,
  PluginDescription,
} from './isolated.js';
