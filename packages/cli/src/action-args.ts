import { parseArgs } from 'node:util';
import { ConnectionConfigError, type Connector, type ConnectionInput, type Environment, excerpt, type LogSink } from '@plugboard/sdk';
import { resolve } from 'node:path';
import { type CliIo, writeJsonLine } from './io.js';
import { jsonObjectOption, jsonOption, UsageError } from './usage.js';

/** The options `run` and `record` share: which action, with what input, over which connection. */
export interface ActionArgs {
  connector: Connector;
  action: string;
  input: unknown;
  connection: ConnectionInput;
  environment: Environment;
  credential: () => string;
  log: LogSink;
  values: Record<string, string | undefined>;
}

const COMMON = {
  input: { type: 'string' },
  'base-url': { type: 'string' },
  environment: { type: 'string' },
  connection: { type: 'string' },
  'connection-id': { type: 'string' },
} as const;

/** The connectors a command line may name: the pack, or those of a plugin folder it points at. */
export type PackFor = (values: Record<string, string | undefined>) => Promise<ReadonlyMap<string, Connector>>;

/** What every command that runs an action through the executor accepts: a plugin folder and a state folder. */
export const RUN_PATH_OPTIONS = { plugins: { type: 'string' }, state: { type: 'string' } } as const;

/** The connectors of `--plugins DIR` when given (the packages that failed to load are reported on stderr), else the pack. */
export function packOrPlugins(pack: ReadonlyMap<string, Connector>, io: CliIo): PackFor {
  return async (values) => {
    if (!values.plugins) return pack;
    const { loadPack } = await import('@plugboard/runtime');
    const { connectors, failed } = await loadPack(resolve(io.cwd, values.plugins));
    for (const plugin of failed) writeJsonLine(io.stderr, { level: 'warn', message: `plugin ${plugin.package} not loaded: ${plugin.reason}` });
    return connectors;
  };
}

export async function parseActionArgs(argv: string[], extra: Record<string, { type: 'string' }>, packFor: PackFor, io: CliIo): Promise<ActionArgs> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { ...COMMON, ...extra }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(excerpt((error as Error).message));
  }
  const { values, positionals } = parsed;
  const [connectorKey, action, ...rest] = positionals;
  if (!connectorKey || !action) throw new UsageError('name a connector and an action, e.g. plugboard run descript status.get');
  if (rest.length > 0) throw new UsageError(`unexpected arguments: ${excerpt(rest.join(' '))}`);
  const pack = await packFor(values as Record<string, string | undefined>);
  const connector = pack.get(connectorKey);
  if (!connector) throw new UsageError(`no connector '${excerpt(connectorKey)}'; available: ${[...pack.keys()].sort().join(', ') || 'none'}`);
  const environment = values.environment ?? 'sandbox';
  if (environment !== 'sandbox' && environment !== 'production') {
    throw new UsageError(`--environment must be sandbox or production, not '${excerpt(environment)}'`);
  }
  const settings = jsonOption('--connection', values.connection, undefined);
  if (settings !== undefined && (settings === null || typeof settings !== 'object' || Array.isArray(settings))) {
    throw new UsageError('--connection must be a JSON object of connection settings');
  }
  const secret = io.env.PLUGBOARD_CREDENTIAL;
  const credential = () => {
    if (!secret) throw new ConnectionConfigError('set the credential in the environment variable PLUGBOARD_CREDENTIAL');
    return secret;
  };
  // Warnings and errors of the run as JSON lines on stderr, clear of a progress line.
  const log: LogSink = (entry) => {
    if (entry.level !== 'warn' && entry.level !== 'error') return;
    io.stderr.write(`${io.stderr.isTTY ? '\r\x1b[2K' : ''}${JSON.stringify(entry)}\n`);
  };
  return {
    connector,
    action,
    input: jsonObjectOption('--input', values.input, {}),
    connection: {
      ...(values['connection-id'] ? { id: values['connection-id'] } : {}),
      ...(values['base-url'] ? { baseUrl: values['base-url'] } : {}),
      ...(settings ? { settings: settings as Record<string, unknown> } : {}),
    },
    environment,
    credential,
    log,
    values: values as Record<string, string | undefined>,
  };
}
