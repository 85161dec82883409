import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pluginsReport } from '@plugboard/runtime';
import { InvalidInputError } from '@plugboard/sdk';
import { type CliIo, writeJsonLine } from '../io.js';

function usageError(message: string): InvalidInputError {
  return new InvalidInputError('plugboard plugins', [{ path: '--dir', message }]);
}

/**
 * `plugboard plugins --dir DIR`: loads every package installed in DIR whose `package.json`
 * has a `plugboard` manifest and prints
 * `{"loaded": [{"key", "package", "version"}], "failed": [{"package", "reason"}]}` as one
 * JSON line. Plugins that fail are listed, not thrown; a missing or unusable `--dir` is a
 * usage error (exit 2).
 */
export async function pluginsCommand(argv: string[], io: CliIo): Promise<void> {
  let dir: string | undefined;
  try {
    dir = parseArgs({ args: argv, options: { dir: { type: 'string' } }, allowPositionals: false, strict: true }).values.dir;
  } catch (error) {
    throw usageError(`${(error as Error).message}; usage: plugboard plugins --dir DIR`);
  }
  if (!dir) throw usageError('required: the plugin folder npm or pnpm installed the connector packages into; usage: plugboard plugins --dir DIR');
  const folder = resolve(io.cwd, dir);
  const found = await stat(folder).catch(() => undefined);
  if (!found?.isDirectory()) throw usageError(`no such folder: ${folder}`);
  writeJsonLine(io.stdout, await pluginsReport(folder));
}
