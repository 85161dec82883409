import { spawn } from 'node:child_process';
import type { Invocation } from '../invocation.js';
import { UsageError } from '../usage.js';

/**
 * `plugboard test [--connector DIR]`: the connector package's own test script (its standard
 * suite replaying the recorded fixtures), run with npm in the package's folder, its output
 * streamed as it comes; the exit code is the script's.
 */
export async function testCommand({ values, io, findConnector }: Invocation): Promise<number> {
  const { connector, dir } = await findConnector({ connector: values.connector as string | undefined });
  if (!dir)
    throw new UsageError(
      `connector '${connector.key}' did not come from a package folder; name one with --connector DIR`,
    );
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const child = spawn(npm, ['test'], { cwd: dir, env: io.env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (chunk: Buffer) => io.stdout.write(chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => io.stderr.write(chunk.toString()));
  const code = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exit) => resolve(exit ?? 1));
  });
  return code === 0 ? 0 : 1;
}
