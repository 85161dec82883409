import { access, constants, mkdir } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import type { CliIo } from './io.js';
import { UsageError } from './usage.js';

/**
 * Where `plugboard` keeps idempotency keys when `--state` is not given: a key kept only in
 * the memory of one process would let a second process send the same billable write again.
 */

export interface StateFolder {
  dir: string;
  /** What named it: `--state`, `PLUGBOARD_STATE`, `XDG_STATE_HOME` or `HOME`. */
  from: string;
}

/** `$PLUGBOARD_STATE`, else `$XDG_STATE_HOME/plugboard`, else `$HOME/.local/state/plugboard`; undefined when none is set. */
export function defaultStateFolder(io: CliIo): StateFolder | undefined {
  const { PLUGBOARD_STATE, XDG_STATE_HOME, HOME } = io.env;
  if (PLUGBOARD_STATE) return { dir: resolve(io.cwd, PLUGBOARD_STATE), from: 'PLUGBOARD_STATE' };
  // The XDG base directory rules ignore a relative path.
  if (XDG_STATE_HOME && isAbsolute(XDG_STATE_HOME))
    return { dir: join(XDG_STATE_HOME, 'plugboard'), from: 'XDG_STATE_HOME' };
  if (HOME && isAbsolute(HOME)) return { dir: join(HOME, '.local', 'state', 'plugboard'), from: 'HOME' };
  return undefined;
}

/** `--state DIR` when given, else the default folder; a usage error naming `--state` when there is none. */
export function stateFolder(io: CliIo, given: string | undefined, purpose: string): StateFolder {
  if (given !== undefined) {
    if (given === '') throw new UsageError('--state must name a folder');
    return { dir: resolve(io.cwd, given), from: '--state' };
  }
  const found = defaultStateFolder(io);
  if (!found)
    throw new UsageError(
      `${purpose} needs a state folder: pass --state DIR, or set PLUGBOARD_STATE (neither XDG_STATE_HOME nor HOME is set)`,
    );
  return found;
}

/** Makes sure idempotency keys can be written under the folder (created, only for its owner, when missing). */
export async function ensureWritable(folder: StateFolder, purpose: string): Promise<void> {
  const keys = join(folder.dir, 'idempotency');
  try {
    await mkdir(keys, { recursive: true, mode: 0o700 });
    await access(keys, constants.W_OK);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UsageError(
      `${purpose} cannot be kept: the state folder ${folder.dir} (from ${folder.from}) cannot be written (${reason}); pass --state DIR naming a folder that can`,
    );
  }
}
