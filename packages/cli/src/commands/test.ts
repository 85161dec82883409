import { spawn } from 'node:child_process';
import { connectionIdOption } from '../connection-name.js';
import type { Invocation } from '../invocation.js';
import { UsageError } from '../usage.js';

/**
 * The suite replays fixtures with the network closed, on a token set that never expires: a
 * connection named here would be silently unused, so it is refused, saying where one is used.
 */
function refuseConnection({ values, messages }: Pick<Invocation, 'values' | 'messages'>): void {
  const name = connectionIdOption(values, messages);
  if (name === undefined) return;
  throw new UsageError(
    `--connection-id ${name}: plugboard test runs the package's suite, which replays the recorded fixtures with the network closed and uses no connection; to record on connection ${name}, run plugboard record <action> --scenario <name> --connection-id ${name}`,
  );
}

/**
 * `plugboard test [--connector DIR]`: the connector package's own test script (its standard
 * suite replaying the recorded fixtures), run with npm in the package's folder, its output
 * streamed as it comes; the exit code is the script's. `--connection-id` is refused (exit 2):
 * the suite uses no connection.
 */
export async function testCommand({ values, io, messages, findConnector }: Invocation): Promise<number> {
  refuseConnection({ values, messages });
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
