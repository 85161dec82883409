#!/usr/bin/env node
// The kit before it is on npm: a local npm registry (Verdaccio, the end-to-end tests' own) on
// 127.0.0.1 with every kit package (packages/*) published as `pnpm pack` packs it, so that npm
// installs `@plugboard/*` in any folder. It serves in the foreground until Ctrl+C, from a
// temporary folder it removes when it stops, and changes no npm configuration: it prints the
// per-project line that sends the `@plugboard` scope (and only it) to this registry; every other
// package comes from wherever the machine's npm gets it. An author's own packages (any name
// outside `@plugboard`) publish to it too, with a placeholder token it prints: a first publish
// tried here, naming this registry, never reaches a public one.
//
//   ./pbw local-registry [--port 4873]      (0: any free port)
//
// `./pbw local-registry` builds what is stale first (scripts/fresh-build.mjs). Each step says on
// stderr when it starts and ends, on a terminal or not.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { packWorkspace, publishTarballs, readPackage } from '../test/support/packages.ts';
import { AUTHOR_TOKEN, startRegistry } from '../test/support/registry.ts';
import { ROOT, workspacePackages } from './fresh-build.mjs';

const { values } = parseArgs({ options: { port: { type: 'string', default: '4873' } } });
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  process.stderr.write(`local-registry: --port must be a port number (0 for any free one), not ${values.port}\n`);
  process.exit(2);
}

const say = (line) => process.stderr.write(`local-registry: ${line}\n`);
const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

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
  say(`starting the registry on 127.0.0.1 (--port ${port})`);
  registry = await startRegistry(join(dir, 'registry'), { port, authorsPublish: true });
  say(`the registry listens at ${registry.url}`);
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
  const folders = await kitFolders();
  const begun = performance.now();
  for (const [index, folder] of folders.entries()) {
    const pkg = await readPackage(join(ROOT, folder));
    say(`packing ${pkg.name} (${index + 1} of ${folders.length})`);
    packed.push(await packWorkspace(folder, tarballs));
    names.push(`${pkg.name}@${pkg.version}`);
  }
  say(`publishing ${packed.length} packages`);
  await publishTarballs(registry, packed);
  say(`published ${packed.length} packages in ${seconds(begun)}`);
  process.stdout.write(instructions(registry.url, names));
} catch (error) {
  process.stderr.write(`local-registry: publishing the kit failed: ${error.message}\n`);
  await stop(1);
}

/** What to do next, for a person: the kit's packages, a new package, publishing one's own. */
function instructions(url, names) {
  const host = url.replace(/^http:/, '');
  return [
    `Plugboard's packages are served at ${url} until Ctrl+C:`,
    `  ${names.join(', ')}`,
    '',
    'A new connector package, in any folder:',
    `  npx --yes --@plugboard:registry=${url} @plugboard/cli new acme`,
    "In a connector package's folder, once (npm then gets @plugboard/* from here, the rest as before):",
    `  npm config set @plugboard:registry=${url} --location=project`,
    '',
    'Your own packages (any name outside @plugboard) publish here too. npm wants a token first; this',
    'registry takes a placeholder (no secret: it listens on 127.0.0.1 only). In the package folder:',
    `  npm config set ${host}:_authToken=${AUTHOR_TOKEN} --location=project`,
    `  npm publish --dry-run --registry ${url}`,
    `  npm publish --registry ${url}`,
    '',
    '',
  ].join('\n');
}
