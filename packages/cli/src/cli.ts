import { randomBytes } from 'node:crypto';
import { catalogueCommand } from '@plugboard/catalogue';
import { pluginsCommand } from '@plugboard/runtime';
import { ConnectorError, type Connector } from '@plugboard/sdk';
import { runCommand } from './commands/run.js';
import { recordCommand } from './commands/record.js';
import { simulateCommand } from './commands/simulate.js';
import type { CliIo, ExitCode } from './io.js';
import { USAGE } from './usage.js';

/** Errors found before any request is sent: the caller's input, not the run, is at fault. */
const BAD_INPUT = new Set(['invalid_input', 'invalid_connection', 'unknown_action']);

/** A command resolves when done, with an exit code when it has its own (e.g. a diff that found breaking changes). */
export type Command = (argv: string[], io: CliIo, pack: ReadonlyMap<string, Connector>, signal: AbortSignal) => Promise<void | number>;

export interface CliOptions {
  pack: ReadonlyMap<string, Connector>;
  commands?: Record<string, Command>;
  signal?: AbortSignal;
}

export const COMMANDS: Record<string, Command> = {
  run: runCommand,
  record: recordCommand,
  simulate: simulateCommand,
  catalogue: catalogueCommand,
  plugins: pluginsCommand,
};

/** Runs one command line; returns the exit code instead of exiting, so tests can call it. */
export async function runCli(argv: string[], io: CliIo, options: CliOptions): Promise<ExitCode> {
  const [name, ...rest] = argv;
  const commands = options.commands ?? COMMANDS;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    io.stdout.write(USAGE);
    return name ? 0 : 2;
  }
  const command = commands[name];
  if (!command) {
    io.stderr.write(`plugboard: unknown command '${name}'\n${USAGE}`);
    return 2;
  }
  const signal = options.signal ?? new AbortController().signal;
  try {
    const code = await command(rest, io, options.pack, signal);
    return code === 1 || code === 2 ? code : 0;
  } catch (error) {
    const path = `/cli/${name}/${rest.filter((arg) => !arg.startsWith('-')).slice(0, 2).join('/')}`;
    // The provider's request id when it gave one, else one for this invocation.
    const requestId = (error instanceof ConnectorError ? error.requestId : undefined) ?? `cli_${randomBytes(6).toString('hex')}`;
    if (error instanceof ConnectorError) {
      io.stderr.write(`${JSON.stringify(error.toPlatformError(path, requestId))}\n`);
      return BAD_INPUT.has(error.code) ? 2 : 1;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`${JSON.stringify({ error: 'internal_server_error', message, statusCode: 500, requestId, path })}\n`);
    return 1;
  }
}
