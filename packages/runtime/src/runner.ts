import type { ConnectionInput, Environment } from '@plugboard/sdk';
import { type ConnectorRunner, optionsKey, passedGate, Redactor, type PreparedAction } from '@plugboard/sdk/host';
import { PluginKilledError } from './plugin-killed.js';
import type { PluginPort } from './plugin-port.js';
import type { HostMessage, WirePlan } from './protocol.js';
import { type AskedPlan, heldPlan, RemotePlan } from './remote-plan.js';
import { runRemote } from './remote-run.js';
import { fromWire } from './wire.js';

/**
 * The runner the executor calls for a plugin's connector: preparations, listings of options and
 * resumptions asked of the plugin's process and held to what was asked, and runs handed to it
 * only after the host's approval gate.
 */

const NO_SECRETS = new Redactor();

/** One question, one answer: a preparation or a resumption. Neither holds a secret: the plugin has none to echo yet. */
async function ask(port: PluginPort, build: (id: string) => HostMessage): Promise<WirePlan> {
  await port.ensure();
  return new Promise<WirePlan>((resolveAnswer, reject) => {
    const exchange = port.open(build, {
      onMessage: (message) => {
        exchange.end();
        if (message.type === 'prepared') resolveAnswer(message.plan);
        else if (message.type === 'error') reject(fromWire(message.error, NO_SECRETS, port.plugin));
        else
          reject(
            new PluginKilledError(port.plugin, 'forged', `answered a preparation with '${String(message.type)}'`, ''),
          );
      },
      onKilled: (error) => {
        exchange.end();
        reject(error);
      },
    });
  });
}

/** Asks the plugin's process to prepare, or to resume, a run, and holds its answer to what was asked. */
async function askPlan(port: PluginPort, build: (id: string) => HostMessage, asked: AskedPlan): Promise<RemotePlan> {
  return heldPlan(port, await ask(port, build), asked);
}

/** An action's run, or the listing of one of its fields' options (which runs under its own key). */
async function preparation(
  port: PluginPort,
  action: string,
  field: string | undefined,
  input: unknown,
  options: { connection?: ConnectionInput; environment?: Environment },
): Promise<RemotePlan> {
  const build = (id: string): HostMessage => ({
    type: 'prepare',
    id,
    action,
    ...(field === undefined ? {} : { field }),
    input,
    ...(options.connection ? { connection: options.connection } : {}),
    ...(options.environment ? { environment: options.environment } : {}),
  });
  return askPlan(port, build, {
    action: field === undefined ? action : optionsKey(action, field),
    connectionId: options.connection?.id ?? 'default',
    environment: options.environment ?? 'sandbox',
    ...(options.connection?.authBaseUrl === undefined ? {} : { authBaseUrl: options.connection.authBaseUrl }),
  });
}

export function pluginRunner(port: PluginPort): ConnectorRunner {
  const { key, name, connectorVersion } = port.description;
  const own = (prepared: PreparedAction): RemotePlan => {
    if (!(prepared instanceof RemotePlan) || prepared.owner !== port)
      throw new TypeError(`${key}: a runner takes only the runs it prepared itself`);
    return prepared;
  };
  return {
    key,
    name,
    version: connectorVersion,
    prepare: (action, options) => preparation(port, action, undefined, options.input, options),
    prepareOptions: (action, field, options) => preparation(port, action, field, options.query, options),
    resume: async (prepared, checkpoint, version) => {
      const before = own(prepared);
      const build = (id: string): HostMessage => ({
        type: 'resume',
        id,
        plan: before.id,
        checkpoint,
        ...(version === undefined ? {} : { version }),
      });
      return askPlan(port, build, {
        action: before.action.key,
        connectionId: before.connection.id,
        environment: before.environment,
        ...(before.authBaseUrl === undefined ? {} : { authBaseUrl: before.authBaseUrl }),
      });
    },
    run: (prepared, settings) => {
      const plan = own(prepared);
      if (!passedGate(plan))
        throw new TypeError(
          `${key} ${plan.action.key}: a run is handed to a plugin only after the approval gate (passGate)`,
        );
      return runRemote(port, plan, settings);
    },
  };
}
