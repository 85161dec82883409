import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Starting a plugin's process under Node's permission model: an empty environment, reads of its
 * own package, the packages it imports and the SDK only (no writes, child processes, workers or
 * addons), a heap limit, and on Linux an end that comes with its host's.
 */

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
function dependencyFolders(dir: string, seen = new Set<string>(), implied: string[] = []): Set<string> {
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
  const names = new Set([
    ...implied,
    ...[pkg.dependencies, pkg.peerDependencies, pkg.optionalDependencies].flatMap((deps) => Object.keys(deps ?? {})),
  ]);
  for (const name of names) {
    const found = findPackage(name, real) ?? findPackage(name, dir);
    if (found) dependencyFolders(found, seen);
  }
  return seen;
}

// On Linux the kernel ends a plugin's process when its host ends, however the host ended: a plugin
// spinning on the CPU would never read the end of its stdin. `setpriv` (util-linux) sets that up.
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((path) => existsSync(path));

const runtimeDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const childScript = join(runtimeDir, 'dist', 'plugin-process.js');
const sdkDir = dirname(createRequire(import.meta.url).resolve('@plugboard/sdk/package.json'));

let hostReadable: Set<string> | undefined;

/** What every plugin's process reads besides its own package: the runtime's child script and the SDK, with their dependencies. */
function hostFolders(): Set<string> {
  hostReadable ??= new Set([...dependencyFolders(runtimeDir), ...dependencyFolders(sdkDir)]);
  return hostReadable;
}

/** The folders the process of the plugin in `dir` may read: its package, what it imports, and the host's. */
export function readableFolders(dir: string): Set<string> {
  // A connector imports the SDK and zod whether or not its package.json says so.
  return new Set([...dependencyFolders(dir, new Set(), CONNECTOR_PEERS), ...hostFolders()]);
}

/**
 * Starts a plugin's process reading only `readable`. Its stdin carries the host's messages,
 * descriptor 3 its answers; stdout and stderr are the plugin's log.
 */
export function spawnPlugin(readable: Set<string>, maxOldSpaceMb: number): ChildProcess {
  const args = [
    '--permission',
    ...[...readable].map((path) => `--allow-fs-read=${path}`),
    `--max-old-space-size=${maxOldSpaceMb}`,
    childScript,
  ];
  const command = SETPRIV
    ? [SETPRIV, '--pdeathsig', 'KILL', '--', process.execPath, ...args]
    : [process.execPath, ...args];
  const child = spawn(command[0]!, command.slice(1), { env: {}, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] });
  // A process that died mid-write is reported by its exit, not by a pipe error.
  for (const stream of child.stdio) stream?.on('error', () => undefined);
  return child;
}

/** Keeps the start of what a plugin's process prints (its log, for the report): the text so far. */
export function captureLog(child: ChildProcess): () => string {
  let log = '';
  const capture = (chunk: Buffer) => {
    if (log.length < LOG_LIMIT) log += chunk.toString('utf8').slice(0, LOG_LIMIT - log.length);
  };
  child.stdout?.on('data', capture);
  child.stderr?.on('data', capture);
  return () => log;
}
