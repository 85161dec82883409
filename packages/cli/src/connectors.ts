import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { type Connector, excerpt } from '@plugboard/sdk';
import type { IsolatedPlugin, IsolationOptions } from '@plugboard/runtime';
import { didYouMean, nearest } from './did-you-mean.js';
import type { CliIo } from './io.js';
import type { Messages } from './messages.js';
import { UsageError } from './usage.js';

/**
 * How a command finds its connector, the way it finds anyone's: the CLI ships no connector.
 *
 * - `--connector DIR|PACKAGE`: a connector package folder, or a package name installed where
 *   Node would find it from the working folder;
 * - `--plugins DIR`: a plugin folder npm or pnpm installed connector packages into, by key;
 * - a key alone (`plugboard run descript ...`): the connector package of the working folder
 *   when its key matches, else the installed package `@plugboard/connector-KEY` or
 *   `plugboard-connector-KEY`;
 * - nothing: the connector package of the working folder (an author's own connector).
 *
 * Packages are loaded in this process with the runtime's loader (manifest, SDK range,
 * definition checked): name only connectors you trust. `run --plugins DIR` is the exception:
 * each plugin of the folder runs in a process of its own (`isolatedIn`).
 */

export interface ConnectorChoice {
  key?: string | undefined;
  connector?: string | undefined;
  plugins?: string | undefined;
}

export interface FoundConnector {
  connector: Connector;
  /** The connector's package folder, when it came from one. */
  dir?: string;
  /** The package's name, from its `package.json`, when it came from one. */
  package?: string;
}

export type FindConnector = (choice: ConnectorChoice) => Promise<FoundConnector>;

/** `given`: connectors a host program passes in by key (tests, an embedding host); otherwise connectors are found as above. */
export function connectorFinder(io: CliIo, messages: Messages, given?: ReadonlyMap<string, Connector>): FindConnector {
  return async (choice) => {
    const found =
      given && !choice.connector && !choice.plugins ? fromGiven(given, choice.key) : await find(io, messages, choice);
    if (choice.key !== undefined && found.connector.key !== choice.key) {
      throw new UsageError(
        `the connector found is '${found.connector.key}', not '${excerpt(choice.key)}'${found.dir ? ` (${found.dir})` : ''}`,
      );
    }
    return found;
  };
}

function fromGiven(given: ReadonlyMap<string, Connector>, key: string | undefined): FoundConnector {
  // No key: the one connector given, when there is exactly one.
  const connector = key === undefined ? (given.size === 1 ? [...given.values()][0] : undefined) : given.get(key);
  if (!connector)
    throw new UsageError(
      `no connector '${excerpt(key ?? '')}'${didYouMean(key ?? '', given.keys())}; available: ${[...given.keys()].sort().join(', ') || 'none'}`,
    );
  return { connector };
}

async function find(io: CliIo, messages: Messages, choice: ConnectorChoice): Promise<FoundConnector> {
  const runtime = await import('@plugboard/runtime');
  const load = async (dir: string): Promise<FoundConnector> => {
    try {
      const plugin = await runtime.loadPlugin({ dir });
      return { connector: plugin.connector, dir: plugin.dir, package: plugin.package };
    } catch (error) {
      if (error instanceof runtime.PluginLoadError)
        throw new UsageError(`${dir} is not a connector package Plugboard can load: ${error.message}`);
      throw error;
    }
  };
  if (choice.plugins) {
    const connectors = await connectorsIn(io, messages, choice.plugins);
    const connector = choice.key === undefined ? undefined : connectors.get(choice.key);
    if (!connector) throw notInPlugins(choice.key, choice.plugins, connectors.keys());
    return { connector };
  }
  if (choice.connector) {
    const path = resolve(io.cwd, choice.connector);
    if (isPath(choice.connector) || existsSync(join(path, 'package.json'))) return load(path);
    const dir = installed(choice.connector, io.cwd);
    if (!dir)
      throw new UsageError(
        `--connector ${excerpt(choice.connector)}: no such folder, and no package of that name installed here`,
      );
    return load(dir);
  }
  const here = connectorPackageAbove(io.cwd);
  if (here) {
    const found = await load(here);
    if (choice.key === undefined || found.connector.key === choice.key) return found;
  } else if (choice.key === undefined) {
    throw new UsageError(
      'no connector package here: run in a connector package folder (its package.json has a "plugboard" manifest), or name one with --connector DIR',
    );
  }
  const names = [`@plugboard/connector-${choice.key!}`, `plugboard-connector-${choice.key!}`];
  for (const name of names) {
    const dir = installed(name, io.cwd);
    if (dir) return load(dir);
  }
  const near = nearest(choice.key!, installedKeys(io.cwd));
  throw new UsageError(
    near
      ? `no connector '${excerpt(choice.key!)}'; did you mean ${near}? (neither ${names.join(' nor ')} is installed)`
      : `no connector '${excerpt(choice.key!)}': not this folder's package, and neither ${names.join(' nor ')} is installed; name one with --connector DIR or --plugins DIR`,
  );
}

function notInPlugins(key: string | undefined, dir: string, keys: Iterable<string>): UsageError {
  const known = [...keys].sort();
  return new UsageError(
    `no connector '${excerpt(key ?? '')}' in --plugins ${excerpt(dir)}${didYouMean(key ?? '', known)}; it has ${known.join(', ') || 'none'}`,
  );
}

const PACKAGE_PREFIXES = ['@plugboard/connector-', 'plugboard-connector-'];

/** The keys of the connector packages installed where Node would look from `from` (by their names: none is loaded). */
function installedKeys(from: string): string[] {
  const keys = new Set<string>();
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const modules = join(dir, 'node_modules');
    for (const name of [
      ...packagesIn(modules),
      ...packagesIn(join(modules, '@plugboard')).map((n) => `@plugboard/${n}`),
    ])
      for (const prefix of PACKAGE_PREFIXES) if (name.startsWith(prefix)) keys.add(name.slice(prefix.length));
    if (dirname(dir) === dir) return [...keys];
  }
}

/** The names in a folder, none when it cannot be read. */
function packagesIn(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Every connector package in a plugin folder, with its folder and name; each one that did not load is said on stderr. */
export async function connectorPackagesIn(io: CliIo, messages: Messages, dir: string): Promise<FoundConnector[]> {
  const { loadPack } = await import('@plugboard/runtime');
  const { loaded, failed } = await loadPack(resolve(io.cwd, dir));
  notLoaded(messages, failed);
  return loaded.map((plugin) => ({ connector: plugin.connector, dir: plugin.dir, package: plugin.package }));
}

/** Every connector of a plugin folder, by key. */
export async function connectorsIn(
  io: CliIo,
  messages: Messages,
  dir: string,
): Promise<ReadonlyMap<string, Connector>> {
  return new Map((await connectorPackagesIn(io, messages, dir)).map((found) => [found.connector.key, found.connector]));
}

function notLoaded(messages: Messages, failed: ReadonlyArray<{ package: string; reason: string }>): void {
  for (const plugin of failed)
    messages.say({ level: 'warn', message: `plugin ${plugin.package} not loaded: ${plugin.reason}` });
}

/**
 * The connector `key` of a plugin folder, running in a process of its own, as the platform runs
 * third-party connectors: every package of the folder is started isolated (none is imported
 * here), the others are ended, and each one that did not start is said on stderr.
 */
export async function isolatedIn(
  io: CliIo,
  messages: Messages,
  dir: string,
  key: string | undefined,
  options: IsolationOptions,
): Promise<IsolatedPlugin> {
  const { startPlugins } = await import('@plugboard/runtime');
  const { loaded, failed } = await startPlugins(resolve(io.cwd, dir), options);
  notLoaded(messages, failed);
  const chosen = loaded.find((plugin) => plugin.key === key);
  await Promise.all(loaded.filter((plugin) => plugin !== chosen).map((plugin) => plugin.close()));
  if (!chosen)
    throw notInPlugins(
      key,
      dir,
      loaded.map((plugin) => plugin.key),
    );
  return chosen;
}

function isPath(text: string): boolean {
  return isAbsolute(text) || text.startsWith('.') || text.includes(sep);
}

/** The folder of package `name` as Node would find it from `from`, or undefined. */
function installed(name: string, from: string): string | undefined {
  try {
    return dirname(createRequire(join(from, 'noop.js')).resolve(`${name}/package.json`));
  } catch {
    return undefined;
  }
}

/** The folder of the nearest package.json at or above `from`, when it declares a connector (a `plugboard` manifest). */
export function connectorPackageAbove(from: string): string | undefined {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        const manifest = (JSON.parse(readFileSync(file, 'utf8')) as { plugboard?: unknown }).plugboard;
        return manifest && typeof manifest === 'object' ? dir : undefined;
      } catch {
        return undefined;
      }
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/** A package folder inside node_modules is an installed copy: nothing of an author's is written there. */
export function isInstalledCopy(dir: string): boolean {
  return dir.split(sep).includes('node_modules');
}
