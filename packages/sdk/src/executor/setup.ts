import { type Clock, systemClock } from '../clock.js';
import type { ConnectionCredential } from '../credentials.js';
import type { Environment } from '../definition/action.js';
import type { Connector } from '../definition/connector.js';
import type { RetrySettings } from '../http/client.js';
import type { Transport } from '../http/transport.js';
import type { LogLevel, LogSink } from '../log.js';
import { type ConnectorRunner, localRunner } from '../runner.js';
import { memoryStore, type Stores } from '../stores.js';
import type { PluginConnector } from './runners.js';

/** A connection as the host's resolver gives it: non-secret settings only. */
export interface HostConnection {
  id: string;
  /** Overrides the connector's default base URL. */
  baseUrl?: string;
  /** Points the OAuth2 endpoints at a stand-in authorization server, sandbox only (`ConnectionInput.authBaseUrl`). */
  authBaseUrl?: string;
  /** Non-secret settings; secret-like keys are refused (rule 10). */
  settings?: Record<string, unknown>;
  /** When set, the connection may run only in this environment. */
  environment?: Environment;
}

export interface ExecutorOptions {
  /** The connectors the executor runs, by key (a map, or a list). */
  connectors?: ReadonlyMap<string, Connector> | readonly Connector[];
  /** Loaded plugins (`@plugboard/runtime`'s `loadPlugins` result, or its `loaded` list), added to `connectors`. */
  plugins?: { loaded: readonly PluginConnector[] } | readonly PluginConnector[];
  resolveConnection(connectionId: string): HostConnection | Promise<HostConnection>;
  /** The connection's credential from the host's vault, in its scheme's shape (a string for bearer and API keys); never stored in settings. */
  resolveCredential(connectionId: string): ConnectionCredential | undefined | Promise<ConnectionCredential | undefined>;
  /** Default: both in memory. */
  stores?: Partial<Stores>;
  /** The time approvals are checked against and records and events are stamped with; default the system clock. */
  clock?: Clock;
  /** The pool and rate budgets; default: the SDK's process-wide one. */
  transport?: Transport;
  /** Structured log entries of the runs, already redacted. */
  log?: LogSink;
  /** The least level that reaches `log`; lower entries are never built. Default `info`. */
  logLevel?: LogLevel;
  /** Retry settings for reads and safe writes; default: the SDK's. */
  retry?: Partial<RetrySettings>;
  /** Further secret values to keep out of logs, errors and records (besides each run's credential). */
  secrets?: readonly string[];
}

/**
 * What the executor's entry points run with (`prepareExecution`, `runSource`, `runDestination`,
 * `listFieldOptions`, `checkHostConnection`): the host's resolvers and run settings, with the
 * runners, stores and clock settled. `setUpExecutor` builds it once; every request shares it.
 */
export interface ExecutorSetup
  extends Pick<
    ExecutorOptions,
    'resolveConnection' | 'resolveCredential' | 'transport' | 'log' | 'logLevel' | 'retry' | 'secrets'
  > {
  /** The connectors it runs, by key: each one's runner. */
  readonly runners: ReadonlyMap<string, ConnectorRunner>;
  /** Where sources' checkpoints and destinations' idempotency keys are kept. */
  readonly stores: Stores;
  /** The time approvals are checked against and records and events are stamped with. */
  readonly clock: Clock;
  /**
   * Runs `run` once every earlier run under the same idempotency key in this process has ended:
   * a concurrent repeat waits for the first, then finds its result.
   */
  oneAtATime<T>(key: string, run: () => Promise<T>): Promise<T>;
}

function pluginList(plugins: ExecutorOptions['plugins']): readonly PluginConnector[] {
  if (plugins === undefined) return [];
  return Array.isArray(plugins) ? plugins : (plugins as { loaded: readonly PluginConnector[] }).loaded;
}

/** Each connector's runner by key; the same connector (or runner) given twice is one, two different ones under one key are refused. */
function runnerMap(options: ExecutorOptions): Map<string, ConnectorRunner> {
  const map = new Map<string, ConnectorRunner>();
  const given = new Map<string, unknown>();
  const add = (connector: Connector | ConnectorRunner, from: string) => {
    const existing = given.get(connector.key);
    if (existing !== undefined && existing !== connector)
      throw new TypeError(`createExecutor: two connectors have the key '${connector.key}' (${from})`);
    given.set(connector.key, connector);
    if (existing === undefined) map.set(connector.key, 'prepare' in connector ? connector : localRunner(connector));
  };
  const connectors = options.connectors;
  if (connectors)
    for (const connector of connectors instanceof Map ? connectors.values() : (connectors as readonly Connector[]))
      add(connector, 'connectors');
  for (const plugin of pluginList(options.plugins))
    add('runner' in plugin ? plugin.runner : plugin.connector, `plugin ${plugin.package}`);
  return map;
}

/** Runs by key, one after the other; a key's queue is dropped once its last run ended. */
function keyQueue(): ExecutorSetup['oneAtATime'] {
  const queues = new Map<string, Promise<unknown>>();
  return async (key, run) => {
    const previous = queues.get(key) ?? Promise.resolve();
    const current = previous.then(run, run);
    const tail = current.catch(() => undefined);
    queues.set(key, tail);
    try {
      return await current;
    } finally {
      if (queues.get(key) === tail) queues.delete(key);
    }
  };
}

/** The setup of an executor: its runners (two connectors under one key are refused), stores (default in memory) and clock. */
export function setUpExecutor(options: ExecutorOptions): ExecutorSetup {
  const runners = runnerMap(options);
  const defaults = memoryStore();
  return {
    runners,
    stores: {
      checkpoints: options.stores?.checkpoints ?? defaults.checkpoints,
      idempotency: options.stores?.idempotency ?? defaults.idempotency,
    },
    clock: options.clock ?? systemClock,
    // Called on the host's options, as the host wrote them.
    resolveConnection: (connectionId) => options.resolveConnection(connectionId),
    resolveCredential: (connectionId) => options.resolveCredential(connectionId),
    transport: options.transport,
    log: options.log,
    logLevel: options.logLevel,
    retry: options.retry,
    secrets: options.secrets,
    oneAtATime: keyQueue(),
  };
}
