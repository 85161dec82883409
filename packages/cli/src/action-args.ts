import type { ConnectionCredential, ConnectionInput, Connector, Environment, LogSink } from '@plugboard/sdk';
import type { IsolatedPlugin, IsolationOptions } from '@plugboard/runtime';
import { authBaseUrlOption } from './auth-base-option.js';
import { type FoundConnector, isolatedIn } from './connectors.js';
import { connectionIdOption } from './connection-name.js';
import { environmentCredential } from './credential-variable.js';
import { allowedNetwork } from './network.js';
import { checkActionName } from './did-you-mean.js';
import type { Messages } from './messages.js';
import type { Invocation } from './invocation.js';
import { jsonObjectOption, jsonOption, UsageError } from './usage.js';

/** What `run` and `record` share: which action of which connector, with what input, over which connection. */
export interface ActionArgs {
  connector: Connector;
  /** The connector's key and actions, wherever it runs. */
  target: { key: string; actions: ReadonlyArray<{ key: string; direction: string }> };
  /** The connector's package folder, when it came from one. */
  dir: string | undefined;
  action: string;
  input: unknown;
  connection: ConnectionInput;
  environment: Environment;
  /** From PLUGBOARD_CREDENTIAL, for a connection no one signed in to. */
  credential: (connectionId?: string) => ConnectionCredential;
  log: LogSink;
  values: Record<string, string | undefined>;
}

/** `run --plugins DIR`: the connector runs isolated, in a process of its own; `plugin` is it. */
export interface IsolatedActionArgs extends Omit<ActionArgs, 'connector'> {
  plugin: IsolatedPlugin;
}

/**
 * The connector `key` of the plugin folder `--plugins`, started in a process of its own under the
 * environment's network policy (PLUGBOARD_ALLOW_NETWORK) and Redis (PLUGBOARD_REDIS_URL).
 */
export function startIsolated(
  { io, messages, values }: Invocation,
  key: string | undefined,
  options: Pick<IsolationOptions, 'tools'> = {},
): Promise<IsolatedPlugin> {
  const redis = io.env.PLUGBOARD_REDIS_URL;
  return isolatedIn(io, messages, values.plugins as string, key, {
    allow: allowedNetwork(io.env),
    ...(redis ? { redis } : {}),
    ...options,
  });
}

/** The arguments of `run`: a connector of a plugin folder runs isolated; any other is imported here. */
export async function runArgs(invocation: Invocation): Promise<ActionArgs | IsolatedActionArgs> {
  const values = invocation.values as Record<string, string | undefined>;
  if (!values.plugins) return actionArgs(invocation);
  const plugin = await startIsolated(invocation, actionTarget(invocation.args).key);
  const found = { key: plugin.key, actions: plugin.actions };
  try {
    return { ...(await actionArgs(invocation, found)), plugin } as IsolatedActionArgs;
  } catch (error) {
    // Arguments refused: the plugin's process has nothing to run.
    await plugin.close();
    throw error;
  }
}

export async function actionArgs(invocation: Invocation): Promise<ActionArgs>;
export async function actionArgs(
  invocation: Invocation,
  isolated: ActionArgs['target'],
): Promise<Omit<ActionArgs, 'connector'>>;
export async function actionArgs(
  { args, values: given, io, messages, findConnector }: Invocation,
  isolated?: ActionArgs['target'],
): Promise<Omit<ActionArgs, 'connector'> & { connector?: Connector }> {
  const values = given as Record<string, string | undefined>;
  const { key, action } = actionTarget(args);
  const found: Partial<FoundConnector> = isolated
    ? {}
    : await findConnector({ key, connector: values.connector, plugins: values.plugins });
  const settings = jsonOption('--connection', values.connection, undefined);
  if (settings !== undefined && (settings === null || typeof settings !== 'object' || Array.isArray(settings))) {
    throw new UsageError('--connection must be a JSON object of connection settings');
  }
  const target = isolated ?? { key: found.connector!.key, actions: found.connector!.actions };
  checkActionName(target, action);
  const id = connectionIdOption(values, messages);
  const authScheme = (settings as Record<string, unknown> | undefined)?.authScheme;
  const environment = (values.environment ?? 'sandbox') as Environment;
  // A stand-in's endpoints for a connection no one signed in to (a sign-in keeps its own: signed-in.ts).
  const authBaseUrl = authBaseUrlOption(values['auth-base-url'], environment, found.connector);
  return {
    ...(found.connector ? { connector: found.connector } : {}),
    target,
    dir: found.dir,
    action,
    input: jsonObjectOption('--input', values.input, {}),
    connection: {
      ...(id ? { id } : {}),
      ...(values['base-url'] ? { baseUrl: values['base-url'] } : {}),
      ...(authBaseUrl === undefined ? {} : { authBaseUrl }),
      ...(settings ? { settings: settings as Record<string, unknown> } : {}),
    },
    environment,
    credential: environmentCredential(io, { ...(found.connector ? { connector: found.connector } : {}), authScheme }),
    log: messagesLog(messages),
    values,
  };
}

/** Warnings and errors of a run, said on stderr like any message. */
export function messagesLog(messages: Messages): LogSink {
  return (entry) => {
    if (entry.level === 'warn' || entry.level === 'error') messages.say({ ...entry, level: entry.level });
  };
}

/** The connector key and action of `[connector] <action>`: one argument is the action. */
export function actionTarget(args: string[]): { key: string | undefined; action: string } {
  if (args.length === 0)
    throw new UsageError(
      'name the action, e.g. plugboard run descript status.get, or plugboard run status.get in a connector package folder',
    );
  return args.length >= 2 ? { key: args[0], action: args[1]! } : { key: undefined, action: args[0]! };
}
