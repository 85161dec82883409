import { join, resolve } from 'node:path';
import { isInstalledCopy } from './connectors.js';
import { UsageError } from './usage.js';

/** `--fixtures DIR`, else the connector package's own test/fixtures; never an installed copy's. */
export function fixturesFolder(given: string | undefined, dir: string | undefined, key: string, cwd: string): string {
  if (given) return resolve(cwd, given);
  if (!dir)
    throw new UsageError(`--fixtures DIR is required for connector '${key}': it did not come from a package folder`);
  if (isInstalledCopy(dir)) {
    throw new UsageError(
      `connector '${key}' is an installed copy (${dir}); use your connector's own folder with --connector DIR, or name --fixtures DIR`,
    );
  }
  return join(dir, 'test', 'fixtures');
}
