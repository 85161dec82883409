#!/usr/bin/env node
// The kit before it is on npm: a local npm registry (Verdaccio, the end-to-end tests' own) on
// 127.0.0.1 with every kit package (packages/*) published as `pnpm pack` packs it, so that npm
// installs `@plugboard/*` in any folder. It serves in the foreground until Ctrl+C, from a
// temporary folder it removes when it stops, and changes no npm configuration: it prints the
// per-project line that sends the `@plugboard` scope (and only it) to this registry; every other
// package comes from wherever the machine's npm gets it.
//
//   ./pbw local-registry [--port 4873]      (0: any free port)
//
// `./pbw local-registry` builds what is stale first (scripts/fresh-build.mjs).
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { packWorkspace, publishTarballs, readPackage } from '../test/support/packages.ts';
import { startRegistry } from '../test/support/registry.ts';
import { ROOT, workspacePackages } from './fresh-build.mjs';

const { values } = parseArgs({ options: { port: { type: 'string', default: '4873' } } });
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  process.stderr.write(`local-registry: --port must be a port number (0 for any free one), not ${values.port}\n`);
  process.exit(2);
}

/** The kit's publishable packages: every package of packages/ that is not private. */
async function kitFolders() {
  const folders = [];
  for (const { folder } of workspacePackages().values()) {
    if (folder.startsWith('packages/') && !(await readPackage(join(ROOT, folder))).private) folders.push(folder);
  }
  return folders.sort();
}

const dir = await mkdtemp(join(tmpdir(), 'plugboard-local-registry-'));
let registry;
const stop = async (code) => {
  await registry?.stop();
  await rm(dir, { recursive: true, force: true });
  process.exit(code);
};
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

try {
  registry = await startRegistry(join(dir, 'registry'), { port });
} catch (error) {
  process.stderr.write(
    `local-registry: the registry did not start on port ${port}${port === 0 ? '' : ' (another one may hold it: --port N, or --port 0 for any free port)'}\n${error.message}\n`,
  );
  await stop(1);
}
try {
  const tarballs = join(dir, 'tarballs');
  await mkdir(tarballs);
  const packed = [];
  const names = [];
  for (const folder of await kitFolders()) {
    packed.push(await packWorkspace(folder, tarballs));
    const pkg = await readPackage(join(ROOT, folder));
    names.push(`${pkg.name}@${pkg.version}`);
  }
  await publishTarballs(registry, packed);
  const url = registry.url;
  process.stdout.write(
    [
      `Plugboard's packages are served at ${url} until Ctrl+C:`,
      `  ${names.join(', ')}`,
      '',
      'A new connector package, in any folder:',
      `  npx --yes --@plugboard:registry=${url} @plugboard/cli new acme`,
      "In a connector package's folder, once (npm then gets @plugboard/* from here, the rest as before):",
      `  npm config set @plugboard:registry=${url} --location=project`,
      '',
    ].join('\n'),
  );
} catch (error) {
  process.stderr.write(`local-registry: publishing the kit failed: ${error.message}\n`);
  await stop(1);
}
