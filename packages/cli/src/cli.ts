import { randomBytes } from 'node:crypto';
import { ConnectorError, type Connector, excerpt } from '@plugboard/sdk';
import { connectorFinder } from './connectors.js';
import { type ExitCode, exitCodeOf } from './exit-codes.js';
import type { CliIo } from './io.js';
import { hintFor } from './hints.js';
import { buildProgram, COMMANDS, type CommandName, CommanderError, type Invocation } from './program.js';

export interface CliOptions {
  /** Connectors by key that a host program passes in, found before any package (tests, an embedding host). */
  pack?: ReadonlyMap<string, Connector>;
  signal?: AbortSignal;
}

/** Whether the pack's simulators (private packages of the repository) can be loaded from here. */
function simulatorsHere(): boolean {
  try {
    import.meta.resolve('@plugboard/simulator-descript');
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs one command line and returns the exit code (the table in exit-codes.ts) instead of
 * exiting, so tests can call it. Failures go to stderr as the platform Error JSON with
 * `--json` or when stdout is not a terminal, else as a short message with a hint.
 */
export async function runCli(argv: string[], io: CliIo, options: CliOptions = {}): Promise<ExitCode> {
  const signal = options.signal ?? new AbortController().signal;
  const findConnector = connectorFinder(io, options.pack);
  let code: number | void = 0;
  let asJson = argv.includes('--json') || !io.stdout.isTTY;
  const program = buildProgram({
    io,
    simulators: simulatorsHere(),
    async run(name: CommandName, args: string[], values: Invocation['values'], json: boolean) {
      asJson = json || !io.stdout.isTTY;
      const command = await COMMANDS[name]();
      code = await command({ args, values, io, findConnector, signal });
    },
  });
  if (argv.length === 0) {
    io.stdout.write(program.helpInformation());
    return 2;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code === 1 || code === 2 ? code : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
      // A command of subcommands named alone: its help went to stderr.
      if (error.code === 'commander.help') return 2;
      // A command line that cannot be understood: commander's message names the option and the closest one.
      return report(new UsageFailure(error.message.replace(/^error: /, '')), argv, io, asJson);
    }
    return report(error, argv, io, asJson);
  }
}

/** A command line commander refused, reported like any input refused before a request. */
class UsageFailure extends Error {}

function report(error: unknown, argv: string[], io: CliIo, asJson: boolean): ExitCode {
  const code = error instanceof UsageFailure ? 2 : exitCodeOf(error);
  const path = `/cli/${argv
    .filter((arg) => !arg.startsWith('-'))
    .slice(0, 3)
    .map((arg) => excerpt(arg))
    .join('/')}`;
  if (!asJson) {
    const message = excerpt(error instanceof Error ? error.message : String(error), 1000);
    const hint = error instanceof UsageFailure ? `see plugboard ${argv.filter((arg) => !arg.startsWith('-')).slice(0, 1).join(' ')} --help`.replace('  ', ' ') : hintFor(error);
    io.stderr.write(`plugboard: ${message}\n${hint ? `hint: ${hint}\n` : ''}`);
    return code;
  }
  // The provider's request id when it gave one, else one for this invocation.
  const requestId = (error instanceof ConnectorError ? error.requestId : undefined) ?? `cli_${randomBytes(6).toString('hex')}`;
  if (error instanceof ConnectorError) {
    io.stderr.write(`${JSON.stringify(error.toPlatformError(path, requestId))}\n`);
  } else if (error instanceof UsageFailure) {
    io.stderr.write(`${JSON.stringify({ error: 'request_failed', message: excerpt(error.message, 1000), statusCode: 400, requestId, path, code: 'invalid_input' })}\n`);
  } else {
    const message = excerpt(error instanceof Error ? error.message : String(error), 1000);
    io.stderr.write(`${JSON.stringify({ error: 'internal_server_error', message, statusCode: 500, requestId, path })}\n`);
  }
  return code;
}
