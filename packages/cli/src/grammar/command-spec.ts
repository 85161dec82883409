import type { LoadCommand } from '../invocation.js';

/**
 * A command of the `plugboard` grammar as data: what its help shows and what it parses. The
 * program (program.ts) builds commander's commands from these, in the order of the table.
 */

/** A positional argument: `<name>` required, `[name]` optional, `[name...]` any number. */
export interface ArgumentSpec {
  name: string;
  description: string;
}

export interface OptionSpec {
  /** As commander takes them: `--base-url <url>`, `-o, --out <dir>`, `--force`. */
  flags: string;
  description: string;
  default?: string;
  /** The only values it takes. */
  choices?: readonly string[];
  /** The command is refused without it. */
  required?: boolean;
}

export interface CommandSpec {
  /** Its word, under its parent's (`settle` of `idempotency settle`). */
  name: string;
  /** The line of the command list. */
  summary: string;
  /** What its own `--help` says of it. */
  description?: string;
  /** The usage line after the command's words, when commander's own would mislead. */
  usage?: string;
  arguments?: readonly ArgumentSpec[];
  options?: readonly OptionSpec[];
  /** Command lines its help ends with. */
  examples?: readonly string[];
  /** Listed only where the repository's simulators can be loaded. */
  simulatorsOnly?: boolean;
  /** Its module; a command that only groups subcommands has none. */
  load?: LoadCommand;
  subcommands?: readonly CommandSpec[];
}
