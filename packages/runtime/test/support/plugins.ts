import { cp, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Plugin folders for the loader's tests, laid out as npm (flat `node_modules`, scoped
 * folders) or pnpm (`node_modules/.pnpm/<name>@<version>/node_modules/<name>` with a link
 * at the top) would install them. Each connector package gets `zod` and `@plugboard/sdk`
 * next to it, as npm installs a peer dependency.
 */

const here = dirname(fileURLToPath(import.meta.url));
const runtimeModules = join(here, '..', '..', 'node_modules');

export interface FixturePackage {
  name: string;
  version?: string;
  /** The `plugboard` field; `null` leaves it out. Default `{ connector: './index.js', sdk: '^0.1.0' }`. */
  plugboard?: Record<string, unknown> | null;
  /** The entry module's source. */
  entry?: string;
  /** File name of the entry. */
  entryFile?: string;
}

/** The source of an entry whose default export is a small valid connector with this key. */
export function connectorSource(key: string, options: { version?: string; extra?: string } = {}): string {
  return `
import { z } from 'zod';
import { bearerToken, defineAction, defineConnector } from '@plugboard/sdk';
export { ConnectorError } from '@plugboard/sdk';
const Thing = z.object({ id: z.string() }).meta({ id: '${key}Thing' });
export default defineConnector({
  key: '${key}',
  name: 'Fixture ${key}',
  version: '${options.version ?? '1.0.0'}',
  vendor: null,
  category: 'developer',
  status: 'beta',
  summary: 'A fixture connector.',
  auth: bearerToken(),
  baseUrl: 'http://127.0.0.1:9',
  actions: [
    defineAction({ key: 'things.list', label: 'List things', direction: 'source', entity: Thing, input: z.object({}), async *read() { yield { records: [{ id: '1' }] }; } }),
  ],
});
${options.extra ?? ''}
`;
}

async function writePackage(dir: string, pkg: FixturePackage): Promise<void> {
  await mkdir(dir, { recursive: true });
  const manifest =
    pkg.plugboard === null
      ? {}
      : { plugboard: pkg.plugboard ?? { connector: `./${pkg.entryFile ?? 'index.js'}`, sdk: '^0.1.0' } };
  await writeFile(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: pkg.name, version: pkg.version ?? '1.0.0', type: 'module', ...manifest }, null, 2)}\n`,
  );
  if (pkg.entry !== undefined) await writeFile(join(dir, pkg.entryFile ?? 'index.js'), pkg.entry);
}

/** The SDK and zod, linked into a `node_modules` folder as npm would install them. */
async function linkShared(modules: string): Promise<void> {
  await mkdir(join(modules, '@plugboard'), { recursive: true });
  await symlink(await realpath(join(runtimeModules, 'zod')), join(modules, 'zod')).catch(ignoreExists);
  await symlink(await realpath(join(runtimeModules, '@plugboard', 'sdk')), join(modules, '@plugboard', 'sdk')).catch(
    ignoreExists,
  );
}

function ignoreExists(error: NodeJS.ErrnoException): void {
  if (error.code !== 'EEXIST') throw error;
}

export interface PluginFolder {
  dir: string;
  modules: string;
  cleanup(): Promise<void>;
}

/** A plugin folder as `npm install` leaves it: every package under `node_modules`. */
export async function npmFolder(packages: FixturePackage[]): Promise<PluginFolder> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'plugboard-plugins-')));
  const modules = join(dir, 'node_modules');
  await linkShared(modules);
  for (const pkg of packages) await writePackage(join(modules, ...pkg.name.split('/')), pkg);
  return { dir, modules, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * A plugin folder as `pnpm add` leaves it: packages in `.pnpm/<name>@<version>/node_modules/<name>`,
 * direct ones linked from the top, `hoisted` ones only in `.pnpm/node_modules`.
 */
export async function pnpmFolder(direct: FixturePackage[], hoisted: FixturePackage[] = []): Promise<PluginFolder> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'plugboard-pnpm-')));
  const modules = join(dir, 'node_modules');
  const store = join(modules, '.pnpm');
  const place = async (pkg: FixturePackage) => {
    const storeModules = join(store, `${pkg.name.replace('/', '+')}@${pkg.version ?? '1.0.0'}`, 'node_modules');
    const real = join(storeModules, ...pkg.name.split('/'));
    await writePackage(real, pkg);
    await linkShared(storeModules);
    return real;
  };
  for (const pkg of direct) {
    const real = await place(pkg);
    const link = join(modules, ...pkg.name.split('/'));
    await mkdir(dirname(link), { recursive: true });
    await symlink(real, link, 'dir');
  }
  for (const pkg of hoisted) {
    const real = await place(pkg);
    const link = join(store, 'node_modules', ...pkg.name.split('/'));
    await mkdir(dirname(link), { recursive: true });
    await symlink(real, link, 'dir');
  }
  return { dir, modules, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * A plugin folder holding its own copy of the SDK (not a link to the host's), as a separate
 * `npm install` would: the case where sharing the host's SDK instance matters.
 */
export async function folderWithOwnSdk(packages: FixturePackage[]): Promise<PluginFolder> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'plugboard-own-sdk-')));
  const modules = join(dir, 'node_modules');
  const sdkReal = await realpath(join(runtimeModules, '@plugboard', 'sdk'));
  const copy = join(modules, '@plugboard', 'sdk');
  await mkdir(copy, { recursive: true });
  await cp(join(sdkReal, 'package.json'), join(copy, 'package.json'));
  await cp(join(sdkReal, 'dist'), join(copy, 'dist'), { recursive: true });
  // The copy's own dependencies, resolved from the SDK's folder.
  const manifest = JSON.parse(await readFile(join(sdkReal, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  for (const dependency of Object.keys(manifest.dependencies)) {
    const target = await realpath(join(sdkReal, 'node_modules', dependency));
    await symlink(target, join(modules, dependency), 'dir').catch(ignoreExists);
  }
  for (const pkg of packages) await writePackage(join(modules, ...pkg.name.split('/')), pkg);
  return { dir, modules, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
