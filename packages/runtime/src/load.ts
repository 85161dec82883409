import { byKey, type Connector } from '@plugboard/sdk';
import { connectorProblems, compareText } from '@plugboard/sdk/host';
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  checkSdkRange,
  hasManifest,
  PluginLoadError,
  type PluginManifest,
  readManifest,
  readPackageJson,
} from './manifest.js';
import { shareHostSdk } from './sdk-sharing.js';

/**
 * Loads connector packages: by folder path, or by package name from a plugin folder that
 * npm or pnpm installed into. Each plugin is checked in turn (manifest, SDK range,
 * import, definition); a broken one is reported with its reason and the others load.
 */

export interface LoadedPlugin {
  /** The connector's key, e.g. `insurance`. */
  key: string;
  /** The package's name and version, from its `package.json`. */
  package: string;
  version: string;
  /** The package's folder (real path). */
  dir: string;
  /** The manifest's SDK range. */
  sdk: string;
  /** True when the plugin's imports of `@plugboard/sdk` go to the host's SDK. */
  sharesHostSdk: boolean;
  connector: Connector;
}

export interface FailedPlugin {
  package: string;
  reason: string;
  /** The package's folder, when it was found. */
  dir?: string;
}

export interface LoadResult {
  loaded: LoadedPlugin[];
  failed: FailedPlugin[];
}

export type PluginSpec = { dir: string } | { name: string; from: string };

export interface LoadOptions {
  /** The host's SDK version the manifests' ranges are checked against; default: the installed `@plugboard/sdk`'s. */
  sdkVersion?: string;
  /**
   * Resolve the plugin's imports of `@plugboard/sdk` to the host's SDK (default true), so
   * the host decides the SDK instance, as the connector's peer dependency asks.
   */
  shareHostSdk?: boolean;
}

let hostVersion: string | undefined;

/** The version of the `@plugboard/sdk` this runtime runs connectors with. */
export function hostSdkVersion(): string {
  hostVersion ??= (createRequire(import.meta.url)('@plugboard/sdk/package.json') as { version: string }).version;
  return hostVersion;
}

/** The `node_modules` folder of a plugin folder (or the folder itself when it is one). */
export function modulesFolder(pluginDir: string): string {
  return basename(pluginDir) === 'node_modules' ? pluginDir : join(pluginDir, 'node_modules');
}

const PACKAGE_NAME = /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/i;

const CONNECTOR_FIELDS = ['key', 'name', 'version', 'actions', 'auth', 'rateLimits', 'limitations', 'action'] as const;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') {
    const keys = Object.keys(value as object);
    return keys.length === 0
      ? 'an empty object'
      : `an object with ${keys.slice(0, 6).join(', ')}${keys.length > 6 ? ', ...' : ''}`;
  }
  return typeof value;
}

/**
 * A connector made by `defineConnector`: the frozen shape it returns (key, actions, auth,
 * rate limits, limitations and an `action(key)` lookup that finds each action), and a
 * definition `connectorProblems` finds nothing wrong with under the host's SDK.
 */
export function connectorOf(value: unknown): { connector: Connector } | { problem: string } {
  const notConnector = (why: string) => ({
    problem: `the entry's default export is not a connector made by defineConnector (${why}); export default defineConnector({ ... })`,
  });
  if (value === null || typeof value !== 'object') return notConnector(`it is ${describe(value)}`);
  const candidate = value as Record<string, unknown>;
  const missing = CONNECTOR_FIELDS.filter((field) => candidate[field] === undefined);
  if (missing.length > 0) return notConnector(`it is ${describe(value)}; missing ${missing.join(', ')}`);
  if (
    typeof candidate.key !== 'string' ||
    !Array.isArray(candidate.actions) ||
    !Array.isArray(candidate.auth) ||
    !Array.isArray(candidate.limitations) ||
    typeof candidate.rateLimits !== 'object' ||
    typeof candidate.action !== 'function'
  ) {
    return notConnector('its key, actions, auth, rateLimits, limitations or action() have the wrong types');
  }
  if (!Object.isFrozen(value)) return notConnector('it is not frozen as defineConnector leaves it');
  let problems: string[];
  try {
    problems = connectorProblems(value as unknown as Connector);
  } catch (error) {
    return { problem: `invalid connector definition: checking it failed: ${(error as Error).message}` };
  }
  if (problems.length > 0) return { problem: `invalid connector definition: ${problems.join('; ')}` };
  const connector = value as unknown as Connector;
  for (const action of connector.actions) {
    if (connector.action(action.key) !== action)
      return notConnector(`action('${action.key}') does not find its own action`);
  }
  return { connector };
}

export function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}`;
  return String(error);
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function readDir(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

/** Where a loader takes a package from: its folder (real path), the name to report failures under, and the folders whose SDK imports go to the host's. */
export interface PackageLocation {
  dir: string;
  label: string;
  sdkRoots: string[];
}

/** The package's folder, the name to report failures under, and the folders whose SDK imports go to the host's. */
export function packageDir(spec: PluginSpec): PackageLocation {
  if ('dir' in spec) {
    const dir = resolve(spec.dir);
    const real = realPath(dir);
    if (!real) throw new PluginLoadError(dir, `no such folder: ${dir}`);
    return { dir: real, label: dir, sdkRoots: [real] };
  }
  if (!PACKAGE_NAME.test(spec.name)) throw new PluginLoadError(spec.name, 'not a valid npm package name');
  const modules = modulesFolder(resolve(spec.from));
  const dir = join(modules, ...spec.name.split('/'));
  const real = realPath(dir);
  if (!real) throw new PluginLoadError(spec.name, `not installed in ${spec.from}: there is no ${dir}`);
  // The whole plugin folder: a library the connector depends on imports the host's SDK too.
  return { dir: real, label: spec.name, sdkRoots: [real, realPath(modules) ?? modules] };
}

async function importConnector(manifest: PluginManifest): Promise<Connector> {
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(manifest.entryPath).href)) as Record<string, unknown>;
  } catch (error) {
    throw new PluginLoadError(
      manifest.package,
      `the entry ${manifest.connector} threw on import: ${errorText(error)}`,
      { cause: error },
    );
  }
  const found = connectorOf(module.default);
  if ('problem' in found) throw new PluginLoadError(manifest.package, found.problem);
  return found.connector;
}

/**
 * Loads one connector package: reads and checks its manifest, checks the SDK range against
 * the host's SDK, imports the entry and checks the definition. Throws `PluginLoadError`
 * with the reason when any of that fails.
 */
export async function loadPlugin(spec: PluginSpec, options: LoadOptions = {}): Promise<LoadedPlugin> {
  return loadFrom(packageDir(spec), options);
}

async function loadFrom({ dir, label, sdkRoots }: PackageLocation, options: LoadOptions): Promise<LoadedPlugin> {
  const manifest = await readManifest(dir, label);
  checkSdkRange(manifest, options.sdkVersion ?? hostSdkVersion());
  const sharesHostSdk =
    options.shareHostSdk === false ? false : sdkRoots.map((root) => shareHostSdk(root)).every(Boolean);
  const connector = await importConnector(manifest);
  return {
    key: connector.key,
    package: manifest.package,
    version: manifest.version,
    dir,
    sdk: manifest.sdk,
    sharesHostSdk,
    connector,
  };
}

function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

async function packagesIn(modules: string): Promise<Array<{ name: string; dir: string }>> {
  const found: Array<{ name: string; dir: string }> = [];
  const entries = readDir(modules);
  for (const entry of entries.sort()) {
    if (entry.startsWith('.')) continue;
    const path = join(modules, entry);
    if (entry.startsWith('@')) {
      for (const inner of readDir(path).sort()) {
        if (!inner.startsWith('.') && isDirectory(join(path, inner)))
          found.push({ name: `${entry}/${inner}`, dir: join(path, inner) });
      }
    } else if (isDirectory(path)) {
      found.push({ name: entry, dir: path });
    }
  }
  return found;
}

/**
 * The packages installed in a plugin folder whose `package.json` has a `plugboard` field,
 * whatever their names, sorted by name: the folder's `node_modules` (scoped folders too),
 * then pnpm's hoisted `node_modules/.pnpm/node_modules`, so packages pnpm installed as
 * dependencies of others are found as npm's flat layout would show them.
 */
export async function findPlugins(pluginDir: string): Promise<Array<{ name: string; dir: string }>> {
  const modules = modulesFolder(resolve(pluginDir));
  const seen = new Map<string, string>();
  for (const folder of [modules, join(modules, '.pnpm', 'node_modules')]) {
    for (const candidate of await packagesIn(folder)) {
      if (seen.has(candidate.name)) continue;
      const pkg = await readPackageJson(candidate.dir).catch(() => undefined);
      if (pkg && hasManifest(pkg)) seen.set(candidate.name, candidate.dir);
    }
  }
  return [...seen].sort(byKey).map(([name, dir]) => ({ name, dir }));
}

/**
 * The connector packages of a plugin folder (`findPlugins`), each with where a loader takes it
 * from; `location()` throws `PluginLoadError` for a package whose folder does not resolve.
 */
export async function folderPackages(
  pluginDir: string,
): Promise<Array<{ name: string; dir: string; location(): PackageLocation }>> {
  const modules = modulesFolder(resolve(pluginDir));
  const folderRoot = realPath(modules) ?? modules;
  return (await findPlugins(pluginDir)).map(({ name, dir }) => ({
    name,
    dir,
    location: () => {
      const real = realPath(dir);
      if (!real) throw new PluginLoadError(name, `cannot resolve ${dir}`);
      // The whole plugin folder: a library the connector depends on imports the host's SDK too.
      return { dir: real, label: name, sdkRoots: [real, folderRoot] };
    },
  }));
}

/**
 * Loads every connector package installed in a plugin folder. A broken plugin does not stop
 * the others: the result lists the loaded ones and the failed ones with their reasons. When
 * two packages claim one connector key, neither loads: which one the host should run is not
 * for the loader to guess, and each reason names every claimant.
 */
export async function loadPlugins(pluginDir: string, options: LoadOptions = {}): Promise<LoadResult> {
  const failed: FailedPlugin[] = [];
  const claims = new Map<string, LoadedPlugin[]>();
  for (const { name, dir, location } of await folderPackages(pluginDir)) {
    try {
      const plugin = await loadFrom(location(), options);
      claims.set(plugin.key, [...(claims.get(plugin.key) ?? []), plugin]);
    } catch (error) {
      const reason = error instanceof PluginLoadError ? error.reason : errorText(error);
      const named = error instanceof PluginLoadError && PACKAGE_NAME.test(error.package) ? error.package : name;
      failed.push({ package: named, reason, dir });
    }
  }
  return { loaded: uniqueKeys(claims, failed), failed };
}

/**
 * The plugins whose connector key no other package claims; each of the others goes to `failed`
 * with a reason naming every claimant.
 */
export function uniqueKeys<T extends { package: string; version: string; dir: string }>(
  claims: Map<string, T[]>,
  failed: FailedPlugin[],
): T[] {
  const loaded: T[] = [];
  for (const [key, plugins] of claims) {
    if (plugins.length === 1) {
      loaded.push(plugins[0]!);
      continue;
    }
    // In the folder's order, whichever order the plugins answered in.
    const claimants = [...plugins].sort((a, b) => compareText(a.package, b.package));
    const names = claimants.map((plugin) => `${plugin.package}@${plugin.version}`).join(', ');
    for (const plugin of claimants) {
      failed.push({
        package: plugin.package,
        reason: `connector key '${key}' is claimed by ${plugins.length} packages (${names}); none is loaded: keep one of them in the plugin folder`,
        dir: plugin.dir,
      });
    }
  }
  return loaded;
}

/** A plugin folder as the CLI uses it: its connectors by key, and what failed. */
export interface Pack {
  connectors: Map<string, Connector>;
  loaded: LoadedPlugin[];
  failed: FailedPlugin[];
}

/** Loads a plugin folder into a connector map, for `plugboard run ... --plugins DIR`. */
export async function loadPack(pluginDir: string, options: LoadOptions = {}): Promise<Pack> {
  const { loaded, failed } = await loadPlugins(pluginDir, options);
  return { connectors: new Map(loaded.map((plugin) => [plugin.key, plugin.connector])), loaded, failed };
}
