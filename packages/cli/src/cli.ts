import { randomBytes } from 'node:crypto';
import { ConnectorError, type Connector, excerpt } from '@plugboard/sdk';
import type { CliIo, ExitCode } from './io.js';
import { USAGE } from './usage.js';

/** Errors found before any request is sent: the caller's input, not the run, is at fault. */
const BAD_INPUT = new Set(['invalid_input', 'invalid_connection', 'unknown_action']);

/** A command resolves when done, with an exit code when it has its own (e.g. a diff that found breaking changes). */
export type Command = (argv: string[], io: CliIo, pack: ReadonlyMap<string, Connector>, signal: AbortSignal) => Promise<void | number>;

/** Loads a command's module when the command runs, so `run` never loads what `catalogue` or `record` need. */
export type CommandLoader = () => Promise<Command>;

export interface CliOptions {
  pack: ReadonlyMap<string, Connector>;
  /** Commands by name, in place of `COMMANDS`. */
  commands?: Record<string, Command>;
  signal?: AbortSignal;
}

export const COMMANDS: Record<string, CommandLoader> = {
  run: async () => (await import('./commands/run.js')).runCommand,
  record: async () => (await import('./commands/record.js')).recordCommand,
  simulate: async () => (await import('./commands/simulate.js')).simulateCommand,
  catalogue: async () => (await import('./commands/catalogue.js')).catalogueCommand,
  plugins: async () => (await import('./commands/plugins.js')).pluginsCommand,
  idempotency: async () => (await import('./commands/idempotency.js')).idempotencyCommand,
};

function commandFor(name: string, commands: Record<string, Command> | undefined): CommandLoader | undefined {
  if (commands) return Object.hasOwn(commands, name) ? async () => commands[name]! : undefined;
  return Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
}

/** Runs one command line; returns the exit code instead of exiting, so tests can call it. */
export async function runCli(argv: string[], io: CliIo, options: CliOptions): Promise<ExitCode> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    io.stdout.write(USAGE);
    return name ? 0 : 2;
  }
  const load = commandFor(name, options.commands);
  if (!load) {
    io.stderr.write(`plugboard: unknown command '${excerpt(name)}'\n${USAGE}`);
    return 2;
  }
  const signal = options.signal ?? new AbortController().signal;
  try {
    const command = await load();
    const code = await command(rest, io, options.pack, signal);
    return code === 1 || code === 2 ? code : 0;
  } catch (error) {
    const path = `/cli/${name}/${rest
      .filter((arg) => !arg.startsWith('-'))
      .slice(0, 2)
      .map((arg) => excerpt(arg))
      .join('/')}`;
    // The provider's request id when it gave one, else one for this invocation.
    const requestId = (error instanceof ConnectorError ? error.requestId : undefined) ?? `cli_${randomBytes(6).toString('hex')}`;
    if (error instanceof ConnectorError) {
      io.stderr.write(`${JSON.stringify(error.toPlatformError(path, requestId))}\n`);
      return BAD_INPUT.has(error.code) ? 2 : 1;
    }
    const message = excerpt(error instanceof Error ? error.message : String(error), 1000);
    io.stderr.write(`${JSON.stringify({ error: 'internal_server_error', message, statusCode: 500, requestId, path })}\n`);
    return 1;
  }
}
