import { createRequire } from 'node:module';
import { Command, CommanderError, Option } from 'commander';
import { exitCodesHelp } from './exit-codes.js';
import { type CommandSpec, GRAMMAR, type OptionSpec } from './grammar/index.js';
import type { Invocation, LoadCommand } from './invocation.js';
import type { CliIo } from './io.js';

/**
 * The `plugboard` command line, built from the table of its commands (grammar/). Parsing ends
 * here; each command's module is loaded only when that command runs, so `--help` and `run`
 * never load the catalogue generator, the testing kit or vitest.
 */

export const VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

const ENVIRONMENT_HELP = `Environment:
  PLUGBOARD_CREDENTIAL     the connection's credential (never an argument): a key or token,
                           or the JSON of its scheme's, e.g. {"username","password"}
  PLUGBOARD_CLIENT_ID      the OAuth2 client auth login signs in as (or --client-id)
  PLUGBOARD_CLIENT_SECRET  a confidential OAuth2 client's secret (never an argument)
  PLUGBOARD_REDIS_URL      share rate budgets with every process on that Redis (needs ioredis)
  PLUGBOARD_ALLOW_NETWORK  address ranges the network policy lets through, e.g. 127.0.0.0/8
                           (production runs reach public addresses only, sandbox also loopback)
  PLUGBOARD_STATE          where idempotency keys and signed-in connections are kept without --state
  PLUGBOARD_POSTGRES_URL   the PostgreSQL database of db migrate without --postgres
`;

/** A command line as parsed: the command's words (`idempotency settle`), its module, its arguments and options. */
export interface ParsedCommand {
  name: string;
  load: LoadCommand;
  args: string[];
  values: Invocation['values'];
  /** `--json` was given, before the command or after it. */
  json: boolean;
}

export interface ProgramHooks {
  io: CliIo;
  /** Runs a command once parsing is done. */
  run(command: ParsedCommand): Promise<void>;
  /** Whether the pack's simulators can be loaded here (inside the Plugboard repository). */
  simulators: boolean;
}

/** Options by long name, as `Invocation.values` holds them. */
function valuesOf(command: Command): Invocation['values'] {
  const opts = command.opts();
  const values: Invocation['values'] = {};
  for (const option of command.options)
    values[(option.long ?? option.short ?? '').replace(/^-+/, '')] = opts[option.attributeName()];
  return values;
}

function optionOf(spec: OptionSpec): Option {
  const option = new Option(spec.flags, spec.description);
  if (spec.choices) option.choices(spec.choices);
  if (spec.default !== undefined) option.default(spec.default);
  if (spec.required) option.makeOptionMandatory();
  return option;
}

function examples(lines: readonly string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;
}

/** Adds the command a spec describes, and its subcommands, under `parent`. */
function addCommand(parent: Command, spec: CommandSpec, hooks: ProgramHooks, words: string[]): void {
  const name = [...words, spec.name];
  const command = parent.command(spec.name, { hidden: spec.simulatorsOnly === true && !hooks.simulators });
  command.summary(spec.summary);
  if (spec.description !== undefined) command.description(spec.description);
  if (spec.usage !== undefined) command.usage(spec.usage);
  for (const argument of spec.arguments ?? []) command.argument(argument.name, argument.description);
  for (const option of spec.options ?? []) command.addOption(optionOf(option));
  if (spec.examples) command.addHelpText('after', examples(spec.examples));
  const { load } = spec;
  if (load) {
    command.action(async function (this: Command) {
      const json = rootOf(this).opts().json === true || this.opts().json === true;
      await hooks.run({ name: name.join(' '), load, args: this.args, values: valuesOf(this), json });
    });
  }
  for (const sub of spec.subcommands ?? []) addCommand(command, sub, hooks, name);
  // --json after the command too: `plugboard run ... --json`.
  if (load && !command.options.some((option) => option.long === '--json'))
    command.option('--json', 'print messages and failures on stderr as JSON lines');
}

function rootOf(command: Command): Command {
  return command.parent ? rootOf(command.parent) : command;
}

export function buildProgram(hooks: ProgramHooks): Command {
  const { io } = hooks;
  const program = new Command('plugboard');
  program
    .description('Run, record, test and publish Plugboard connectors.')
    .version(VERSION, '-V, --version', 'print the version of plugboard')
    .option(
      '--json',
      'print messages and failures on stderr as JSON lines, failures as platform Error JSON (the default when stderr is not a terminal)',
    )
    .showSuggestionAfterError(true)
    // Each command parses its own options: `catalogue --plugins` and `catalogue diff --plugins` are two.
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({
      writeOut: (text) => void io.stdout.write(text),
      writeErr: (text) => void io.stderr.write(text),
      // Usage errors are reported by the caller, in the chosen format.
      outputError: () => undefined,
    })
    .addHelpText('after', `\n${exitCodesHelp()}\n${ENVIRONMENT_HELP}`);
  for (const spec of GRAMMAR) addCommand(program, spec, hooks, []);
  return program;
}

export { type Command, CommanderError };
