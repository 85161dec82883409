import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareText } from '@plugboard/sdk';
import { type FailedPlugin, findPlugins, hostSdkVersion, type PluginSpec, packageDir, uniqueKeys } from './load.js';
import { checkSdkRange, PluginLoadError, readManifest } from './manifest.js';

/**
 * Reads a plugin's catalogue metadata in a child process of its own, so listing never imports
 * a plugin into the host: an empty environment, Node's permission model reading only the
 * package, the dependencies it imports and the SDK (no writes, child processes, workers or
 * addons), a heap limit, and the IPC channel for the answer; what the plugin prints is its log.
 */

export type KillReason = 'load_timeout' | 'idle_timeout' | 'memory' | 'exited';

/** A plugin's process the host ended, or that ended on its own before answering. */
export class PluginKilledError extends Error {
  override name = 'PluginKilledError';
  constructor(
    readonly plugin: string,
    readonly reason: KillReason,
    message: string,
    readonly log: string,
  ) {
    super(`${plugin}: ${message}`);
  }
}

export interface IsolationLimits {
  /** Time the plugin has to import and answer; default 10 s. */
  loadTimeoutMs?: number;
  /** The child's V8 heap limit (`--max-old-space-size`); default 256 MB. */
  maxOldSpaceMb?: number;
}

export interface DescribedAction {
  key: string;
  label: string;
  direction: string;
  /** The input's JSON Schema. */
  input: unknown;
}

export interface PluginDescription {
  key: string;
  name: string;
  /** The connector's own version. */
  connectorVersion: string;
  /** The package's name and version, from its `package.json`. */
  package: string;
  version: string;
  /** The package's folder (real path). */
  dir: string;
  actions: DescribedAction[];
}

const LOG_LIMIT = 64 * 1024;
const CONNECTOR_PEERS = ['@plugboard/sdk', 'zod'];

/** The folder of the package whose `package.json` is found from `from` by Node's lookup. */
function findPackage(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', ...name.split('/'));
    if (statSync(join(candidate, 'package.json'), { throwIfNoEntry: false })?.isFile()) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * The folders a package imports from: itself and its dependencies, recursively, each as
 * found (a link) and as its real path, since Node checks reads at both.
 */
export function dependencyFolders(dir: string, seen = new Set<string>(), implied: string[] = []): Set<string> {
  const real = realpathSync(dir);
  const known = seen.has(real);
  seen.add(dir);
  if (known) return seen;
  seen.add(real);
  let pkg: Record<string, Record<string, string> | undefined>;
  try {
    pkg = JSON.parse(readFileSync(join(real, 'package.json'), 'utf8')) as typeof pkg;
  } catch {
    return seen;
  }
  const names = new Set([...implied, ...[pkg.dependencies, pkg.peerDependencies, pkg.optionalDependencies].flatMap((deps) => Object.keys(deps ?? {}))]);
  for (const name of names) {
    const found = findPackage(name, real) ?? findPackage(name, dir);
    if (found) dependencyFolders(found, seen);
  }
  return seen;
}

const runtimeDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const childScript = join(runtimeDir, 'dist', 'plugin-process.js');
const sdkDir = dirname(createRequire(import.meta.url).resolve('@plugboard/sdk/package.json'));

/** Describes one plugin package in a child process; throws `PluginLoadError` or `PluginKilledError`. */
export async function describePlugin(spec: PluginSpec, limits: IsolationLimits & { sdkVersion?: string } = {}): Promise<PluginDescription> {
  const { dir, label } = packageDir(spec);
  const manifest = await readManifest(dir, label);
  checkSdkRange(manifest, limits.sdkVersion ?? hostSdkVersion());
  // A connector imports the SDK and zod whether or not its package.json says so.
  const readable = new Set([...dependencyFolders(dir, new Set(), CONNECTOR_PEERS), ...dependencyFolders(runtimeDir), ...dependencyFolders(sdkDir)]);
  const args = ['--permission', ...[...readable].map((path) => `--allow-fs-read=${path}`), `--max-old-space-size=${limits.maxOldSpaceMb ?? 256}`, childScript, manifest.entryPath, manifest.connector];
  const child = spawn(process.execPath, args, { env: {}, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], serialization: 'json' });
  // The plugin can write to the channel's descriptor itself: only an answer quoting this nonce,
  // which the child holds before the plugin's code runs, is the child's.
  const nonce = randomBytes(16).toString('hex');
  child.send({ type: 'describe', nonce });
  let log = '';
  const capture = (chunk: Buffer) => {
    if (log.length < LOG_LIMIT) log += chunk.toString('utf8').slice(0, LOG_LIMIT - log.length);
  };
  child.stdout?.on('data', capture);
  child.stderr?.on('data', capture);
  const answer = await new Promise<Record<string, unknown>>((resolveAnswer, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new PluginKilledError(manifest.package, 'load_timeout', `did not load within ${limits.loadTimeoutMs ?? 10_000} ms; its process was killed`, log));
    }, limits.loadTimeoutMs ?? 10_000);
    child.once('message', (message) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      if ((message as { nonce?: unknown } | null)?.nonce === nonce) resolveAnswer(message as Record<string, unknown>);
      else reject(new PluginLoadError(manifest.package, 'it wrote to the channel to the host itself (an answer not from its Plugboard process); not loaded'));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const memory = /heap out of memory|Reached heap limit/i.test(log);
      reject(
        new PluginKilledError(
          manifest.package,
          memory ? 'memory' : 'exited',
          memory ? `ran out of its ${limits.maxOldSpaceMb ?? 256} MB heap while loading` : `its process exited while loading (${signal ?? `code ${code}`})`,
          log,
        ),
      );
    });
  });
  child.kill('SIGKILL');
  if (answer.type !== 'described') throw new PluginLoadError(manifest.package, String(answer.reason));
  const connector = answer.connector as Omit<PluginDescription, 'package' | 'version' | 'dir'>;
  return { ...connector, package: manifest.package, version: manifest.version, dir };
}

/**
 * Describes every plugin in a plugin folder, each in its own process; a failing one is reported
 * and the others are described. Two packages claiming one key are both refused, as `loadPlugins` does.
 */
export async function describePlugins(
  pluginDir: string,
  limits: IsolationLimits & { sdkVersion?: string } = {},
): Promise<{ described: PluginDescription[]; failed: Array<FailedPlugin & { killed?: KillReason }> }> {
  const failed: Array<FailedPlugin & { killed?: KillReason }> = [];
  const claims = new Map<string, PluginDescription[]>();
  await Promise.all(
    (await findPlugins(pluginDir)).map(({ name, dir }) =>
      describePlugin({ dir }, limits).then(
        (description) => claims.set(description.key, [...(claims.get(description.key) ?? []), description]),
        (error: unknown) =>
          failed.push({
            package: name,
            reason: error instanceof PluginLoadError ? error.reason : (error as Error).message,
            dir,
            ...(error instanceof PluginKilledError ? { killed: error.reason } : {}),
          }),
      ),
    ),
  );
  const described = uniqueKeys(claims, failed).sort((a, b) => compareText(a.package, b.package));
  return { described, failed: failed.sort((a, b) => compareText(a.package, b.package)) };
}
