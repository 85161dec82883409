import type { AuthScheme } from '@plugboard/sdk';
import type { ActionToolDescription } from '@plugboard/sdk/host';
import type { Exchange, ExchangeHandlers } from './exchanges.js';
import type { IsolationLimits } from './isolation-options.js';
import type { KillReason } from './plugin-killed.js';
import type { HostMessage } from './protocol.js';

export interface DescribedAction {
  key: string;
  label: string;
  direction: 'source' | 'destination';
}

export interface PluginDescription {
  key: string;
  name: string;
  /** The connector's own version. */
  connectorVersion: string;
  /** The package's name and version, from its `package.json`. */
  package: string;
  version: string;
  /** The package's folder (real path). */
  dir: string;
  actions: DescribedAction[];
  /** Each action as a tool server needs it, when the plugin was started with `tools: true`. */
  tools?: ActionToolDescription[];
}

/** A plugin's process and its memory in bytes, as the process counts it (`process.memoryUsage()`). */
export interface PluginUsage {
  pid: number;
  /** Resident set: everything the process holds in memory, buffers outside the heap included. */
  rssBytes: number;
  /** The V8 heap in use, which `maxOldSpaceMb` caps. */
  heapUsedBytes: number;
}

/** What a plugin's runner and its runs ask of the plugin's process. */
export interface PluginPort {
  /** The connector as the plugin described it when it loaded. */
  readonly description: PluginDescription;
  /** The connector's OAuth2 schemes by id, as it described them when it loaded. */
  readonly oauth2: ReadonlyMap<string, AuthScheme>;
  /** The package's name, as failures name the plugin. */
  readonly plugin: string;
  /** What the plugin's process printed so far. */
  readonly log: string;
  readonly limits: Required<IsolationLimits>;
  /** Starts the process (if it is not running) and waits for its description. */
  ensure(): Promise<void>;
  /** Opens an exchange with the process; see `Exchanges.start`. */
  open(build: (id: string) => HostMessage, handlers: ExchangeHandlers): Exchange;
  /** Ends the process; what it held fails with the reason. */
  kill(reason: KillReason, message: string): void;
}
