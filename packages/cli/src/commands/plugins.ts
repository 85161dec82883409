import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pluginsReport } from '@plugboard/runtime';
import { writeJsonLine } from '../io.js';
import type { Invocation } from '../invocation.js';
import { UsageError } from '../usage.js';

/**
 * `plugboard plugins --dir DIR`: loads every package installed in DIR whose `package.json`
 * has a `plugboard` manifest and prints
 * `{"loaded": [{"key", "package", "version"}], "failed": [{"package", "reason"}]}` as one
 * JSON line. Plugins that fail are listed, not thrown; an unusable `--dir` is a usage error.
 */
export async function pluginsCommand({ values, io }: Invocation): Promise<void> {
  const folder = resolve(io.cwd, values.dir as string);
  const found = await stat(folder).catch(() => undefined);
  if (!found?.isDirectory()) throw new UsageError(`--dir: no such folder: ${folder}`);
  writeJsonLine(io.stdout, await pluginsReport(folder));
}
