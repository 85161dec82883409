import type { Connector } from '@plugboard/sdk';
import { type ExitCode, isExitCode } from './exit-codes.js';
import type { CliIo } from './io.js';
import { messagesAsJson, messagesTo } from './messages.js';
import { buildProgram, type Command, CommanderError } from './program.js';

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

/** The longest command the words name (`idempotency settle` of `idempotency settle k1`), as far as it is known. */
function commandPath(program: Command, words: string[]): string[] {
  const path: string[] = [];
  let command = program;
  for (const word of words) {
    const next = command.commands.find((sub) => sub.name() === word || sub.aliases().includes(word));
    if (!next) break;
    path.push(word);
    command = next;
  }
  return path;
}

/**
 * Runs one command line and returns the exit code (the table in exit-codes.ts) instead of
 * exiting, so tests can call it. Messages go to stderr: as text with a hint when stderr is a
 * terminal (a person reads it), else, or with `--json`, as JSON lines (failures as the
 * platform Error JSON). What stdout gets is the command's own.
 */
export async function runCli(argv: string[], io: CliIo, options: CliOptions = {}): Promise<ExitCode> {
  const signal = options.signal ?? new AbortController().signal;
  let code: number | void = 0;
  let asJson = messagesAsJson(argv.includes('--json'), io);
  // The command and its arguments once parsed; before that, the words of the command line that are no options.
  let words = argv.filter((arg) => !arg.startsWith('-'));
  const program = buildProgram({
    io,
    simulators: simulatorsHere(),
    async run({ name, load, args, values, json }) {
      asJson = messagesAsJson(json, io);
      words = [...name.split(' '), ...args];
      const messages = messagesTo(io, asJson);
      const [command, { connectorFinder }] = await Promise.all([load(), import('./connectors.js')]);
      code = await command({
        args,
        values,
        io,
        messages,
        findConnector: connectorFinder(io, messages, options.pack),
        signal,
      });
    },
  });
  if (argv.length === 0) {
    io.stdout.write(program.helpInformation());
    return 2;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return isExitCode(code) ? code : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
      // A command of subcommands named alone: its help went to stderr.
      if (error.code === 'commander.help') return 2;
      // A command line that cannot be understood: commander's message names the option and the closest one.
      const { report, UsageFailure } = await import('./failure.js');
      const failure = new UsageFailure(error.message.replace(/^error: /, ''), commandPath(program, words).join(' '));
      return report(failure, words, io, asJson);
    }
    const { report } = await import('./failure.js');
    return report(error, words, io, asJson);
  }
}
