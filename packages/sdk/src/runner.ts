import type { ConnectionInput } from './connection.js';
import type { Environment, Page } from './definition/action.js';
import type { OptionsQuery } from './definition/options.js';
import type { Connector } from './definition/connector.js';
import { prepareOptions } from './options.js';
import { type PreparedAction, type PreparedRun, prepareRun, resumeFrom, runPrepared, type RunSettings } from './run.js';

/**
 * Where a connector's actions are checked and run. The executor does everything that
 * belongs to the host (connection, credential, approval gate, idempotency claim, checkpoint
 * commit) and asks a runner for the rest: in this process (`localRunner`), or in a plugin's
 * own process (`@plugboard/runtime`'s isolated plugins).
 */
export interface ConnectorRunner {
  readonly key: string;
  readonly name: string;
  readonly version: string;
  /** Validates a run, once (input, connection settings, the action's checks); nothing is sent. */
  prepare(
    actionKey: string,
    options: { input: unknown; connection?: ConnectionInput; environment?: Environment },
  ): Promise<PreparedAction>;
  /**
   * Validates the listing of an input field's options (`prepareOptions`); nothing is sent. It runs
   * as any prepared run, and its one page holds the `OptionsPage`.
   */
  prepareOptions(
    actionKey: string,
    field: string,
    options: { query: OptionsQuery; connection?: ConnectionInput; environment?: Environment },
  ): Promise<PreparedAction>;
  /**
   * The prepared run resuming from a checkpoint of `version` (default: the action's own),
   * migrated to the action's version and checked against its checkpoint schema.
   */
  resume(prepared: PreparedAction, checkpoint: unknown, version?: number): Promise<PreparedAction>;
  /** Runs a prepared run that passed the gate (`passGate`) and yields its pages; a destination yields one page holding its result. */
  run(prepared: PreparedAction, settings: RunSettings): AsyncIterable<Page>;
}

/** A connector imported into this process, run here: for the pack itself, tests, and plugins the host trusts. */
export interface LocalRunner extends ConnectorRunner {
  readonly connector: Connector;
}

export function localRunner(connector: Connector): LocalRunner {
  return {
    key: connector.key,
    name: connector.name,
    version: connector.version,
    connector,
    prepare: async (actionKey, options) => prepareRun(connector, actionKey, options),
    prepareOptions: async (actionKey, field, options) => prepareOptions(connector, actionKey, field, options),
    resume: async (prepared, checkpoint, version) => resumeFrom(prepared as PreparedRun, checkpoint, version),
    // runPrepared refuses anything but a prepared run of this process that passed the gate.
    run: (prepared, settings) => runPrepared(prepared as PreparedRun, settings),
  };
}
