import { InvalidInputError } from '@plugboard/sdk';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type LoadOptions, loadPlugins } from './load.js';

/** What a command writes to; the CLI's `CliIo` fits. */
export interface CommandIo {
  stdout: { write(text: string): unknown };
  /** Relative folders are taken from here; default: the process's working folder. */
  cwd?: string;
}

/** The JSON `plugboard plugins` prints. */
export interface PluginsReport {
  loaded: Array<{ key: string; package: string; version: string }>;
  failed: Array<{ package: string; reason: string }>;
}

/** Loads a plugin folder and gives the report `plugboard plugins` prints. */
export async function pluginsReport(dir: string, options: LoadOptions = {}): Promise<PluginsReport> {
  const { loaded, failed } = await loadPlugins(dir, options);
  return {
    loaded: loaded.map(({ key, package: name, version }) => ({ key, package: name, version })),
    failed: failed.map(({ package: name, reason }) => ({ package: name, reason })),
  };
}

function usageError(message: string): InvalidInputError {
  return new InvalidInputError('plugboard plugins', [{ path: '--dir', message }]);
}

/**
 * `plugboard plugins --dir DIR`: loads every package installed in DIR whose `package.json`
 * has a `plugboard` manifest and prints
 * `{"loaded": [{"key", "package", "version"}], "failed": [{"package", "reason"}]}` as one
 * JSON line on stdout. Plugins that fail are listed, not thrown; a missing or unusable
 * `--dir` throws `InvalidInputError` (a usage error). The extra parameters let it stand as
 * a CLI command `(argv, io, pack, signal)`; they are not used.
 */
export async function pluginsCommand(argv: string[], io: CommandIo, _pack?: unknown, _signal?: AbortSignal, options: LoadOptions = {}): Promise<void> {
  let dir: string | undefined;
  try {
    const parsed = parseArgs({ args: argv, options: { dir: { type: 'string' } }, allowPositionals: false, strict: true });
    dir = parsed.values.dir;
  } catch (error) {
    throw usageError(`${(error as Error).message}; usage: plugboard plugins --dir DIR`);
  }
  if (!dir) throw usageError('required: the plugin folder npm or pnpm installed the connector packages into; usage: plugboard plugins --dir DIR');
  const folder = resolve(io.cwd ?? process.cwd(), dir);
  const found = await stat(folder).catch(() => undefined);
  if (!found?.isDirectory()) throw usageError(`no such folder: ${folder}`);
  io.stdout.write(`${JSON.stringify(await pluginsReport(folder, options))}\n`);
}
