import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import descript from '@plugboard/connector-descript';
import insurance from '@plugboard/connector-insurance';
import type { Connector } from '@plugboard/sdk';
import type { FaultServer } from '@plugboard/testing';
import type { CliIo } from '../src/index.js';

/** The credential the shop's provider accepts in the CLI's tests. */
export const TOKEN = 'cli-test-token-5e1d';

/** The requests a provider saw, as `METHOD /path?query`. */
export function seen(server: FaultServer): string[] {
  return server.requests.map(
    (request) => `${request.method} ${request.path}${request.query.size > 0 ? `?${request.query}` : ''}`,
  );
}

/** Buffers standing in for the process streams. */
export function bufferIo(env: Record<string, string | undefined> = {}, tty = false) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text), isTTY: tty, columns: 80 },
    env,
    cwd: process.cwd(),
  };
  return { io, stdout: () => out.join(''), stderr: () => err.join('') };
}

/** The pack's connectors by key, as a host program passes connectors to runCli. */
export const PACK: ReadonlyMap<string, Connector> = new Map(
  [descript, insurance].map((connector) => [connector.key, connector]),
);

/**
 * A plugin folder as npm leaves it under `home`: one connector package (`index.js` as given,
 * an ES module importing `@plugboard/sdk` and `zod`) beside the SDK and zod. Gives the folder
 * and the package's own.
 */
export async function pluginFolderWith(home: string, name: string, indexJs: string) {
  const plugins = join(home, 'plugins');
  const modules = join(plugins, 'node_modules');
  const own = fileURLToPath(new URL('../node_modules', import.meta.url));
  await mkdir(join(modules, '@plugboard'), { recursive: true });
  await symlink(await realpath(join(own, 'zod')), join(modules, 'zod'));
  await symlink(await realpath(join(own, '@plugboard', 'sdk')), join(modules, '@plugboard', 'sdk'));
  const pkg = join(modules, name);
  await mkdir(pkg);
  const manifest = { connector: './index.js', sdk: '^0.1.0' };
  await writeFile(
    join(pkg, 'package.json'),
    JSON.stringify({ name, version: '1.0.0', type: 'module', plugboard: manifest }),
  );
  await writeFile(join(pkg, 'index.js'), indexJs);
  return { plugins, pkg };
}
