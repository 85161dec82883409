import { excerpt } from '@plugboard/sdk';
import { type CliIo, writeJsonLine } from './io.js';

/**
 * What the CLI says to whoever runs it, on stderr: info lines, warnings, a run's logged
 * errors. Records and results are data and go to stdout; these are messages. A person at a
 * terminal reads text; a log or a script (stderr redirected, or `--json`) reads JSON lines.
 */

export type MessageLevel = 'info' | 'warn' | 'error';

export interface Message {
  level: MessageLevel;
  message: string;
  [field: string]: unknown;
}

export interface Messages {
  /** JSON lines rather than text: `--json`, or stderr is not a terminal. */
  readonly asJson: boolean;
  say(message: Message): void;
}

/** Whether messages are JSON lines: `--json`, or stderr is not a terminal (judged by stderr, where they go, not stdout). */
export function messagesAsJson(json: boolean, io: CliIo): boolean {
  return json || io.stderr.isTTY !== true;
}

const PREFIX: Record<MessageLevel, string> = { info: '', warn: 'warning: ', error: 'error: ' };

/** The longest message said as text; a JSON line keeps the whole entry, each value bounded by who made it. */
const MAX_TEXT = 2000;

/** Control characters a provider's text could carry to move the cursor or recolour a terminal. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are what is replaced.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Text safe to print on a terminal: control characters (but newline and tab) shown as U+FFFD. */
export function printable(text: string): string {
  return text.replace(CONTROL, '\ufffd');
}

export function messagesTo(io: CliIo, asJson: boolean): Messages {
  return {
    asJson,
    say(entry) {
      // A progress line is drawn on a terminal only: clear it first.
      if (io.stderr.isTTY) io.stderr.write('\r\x1b[2K');
      if (asJson) return writeJsonLine(io.stderr, entry);
      const url = typeof entry.url === 'string' ? `:\n\n  ${entry.url}\n` : '';
      io.stderr.write(printable(`${PREFIX[entry.level]}${excerpt(entry.message, MAX_TEXT)}${url}\n`));
    },
  };
}
