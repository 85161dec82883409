import type { FindConnector } from './connectors.js';
import type { CliIo } from './io.js';
import type { Messages } from './messages.js';

/** What a command's module receives: its arguments and options as parsed, and where it runs. */
export interface Invocation {
  args: string[];
  /** Options by their long name without dashes (`base-url`), as typed; flags are booleans. */
  values: Record<string, string | boolean | string[] | undefined>;
  io: CliIo;
  /** Info lines and warnings on stderr, as text for a person or JSON lines. */
  messages: Messages;
  findConnector: FindConnector;
  signal: AbortSignal;
}

/** A command's module: resolves when done, with an exit code when it has its own (a diff that found breaking changes). */
export type CommandRun = (invocation: Invocation) => Promise<void | number>;

/** Loads a command's module: only when that command runs, so `--help` loads none of them. */
export type LoadCommand = () => Promise<CommandRun>;
