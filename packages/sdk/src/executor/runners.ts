import type { Connector } from '../definition/connector.js';
import type { ConnectorRunner, LocalRunner } from '../runner.js';
import { UnknownConnectorError } from './errors.js';

/**
 * A loaded plugin, as far as the executor cares: the package it came from, and its connector
 * imported into this process or a runner for it (an isolated plugin runs in a process of its own).
 */
export type PluginConnector = { package: string } & ({ connector: Connector } | { runner: ConnectorRunner });

/** The runner of the connector under `key`, or `UnknownConnectorError`. */
export function runnerOf(runners: ReadonlyMap<string, ConnectorRunner>, key: string): ConnectorRunner {
  const runner = runners.get(key);
  if (!runner) throw new UnknownConnectorError(key, [...runners.keys()]);
  return runner;
}

/** A runner of a connector imported into this process (`localRunner`), whose definition is at hand. */
export function isLocal(runner: ConnectorRunner): runner is LocalRunner {
  return 'connector' in runner && typeof (runner as LocalRunner).connector?.action === 'function';
}
