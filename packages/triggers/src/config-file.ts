import { readFile } from 'node:fs/promises';
import { excerpt } from '@plugboard/sdk';
import { TriggerConfigError } from './errors.js';

/** The most bytes of a configuration file read: a thousand triggers fit many times over. */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/**
 * A configuration file's JSON, for `createReceiver` to check: a file that cannot be read, is
 * too large or is not JSON is a `TriggerConfigError` naming the file (never its contents).
 */
export async function readTriggerConfig(file: string): Promise<unknown> {
  let text: string;
  try {
    const bytes = await readFile(file);
    if (bytes.length > MAX_CONFIG_BYTES)
      throw new TriggerConfigError([{ path: file, message: `larger than ${MAX_CONFIG_BYTES} bytes` }]);
    text = bytes.toString('utf8');
  } catch (error) {
    if (error instanceof TriggerConfigError) throw error;
    const reason = (error as NodeJS.ErrnoException).code ?? excerpt(String(error));
    throw new TriggerConfigError([{ path: file, message: `cannot be read (${reason})` }]);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new TriggerConfigError([{ path: file, message: 'not valid JSON' }]);
  }
}
