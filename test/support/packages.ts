import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, readFile, realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { isStale } from '../../scripts/fresh-build.mjs';

/**
 * Packing and publishing the workspace's packages for the end-to-end test, and
 * running npm so that it sees only the local registry.
 */

const run = promisify(execFile);
export const ROOT = join(import.meta.dirname, '..', '..');

export interface WorkspacePackage {
  name: string;
  version: string;
  /** Folder relative to the repository root, e.g. `connectors/insurance`. */
  folder: string;
}

interface PackageJson {
  name: string;
  version: string;
  main?: string;
  exports?: Record<string, unknown>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  optionalDependencies?: Record<string, string>;
}

export async function readPackage(dir: string): Promise<PackageJson> {
  return JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as PackageJson;
}

export async function workspacePackage(folder: string): Promise<WorkspacePackage> {
  const pkg = await readPackage(join(ROOT, folder));
  return { name: pkg.name, version: pkg.version, folder };
}

/**
 * An environment for package managers without the npm settings the calling process may
 * carry (pnpm passes its own `npm_config_*` to scripts): only what the test sets applies.
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || /^pnpm_/i.test(key)) continue;
    env[key] = value;
  }
  // No update check by npm or pnpm: they would ask the public registry.
  return { ...env, npm_config_update_notifier: 'false', ...extra };
}

/**
 * Fails, naming them, when packages have no `dist` or one older than their sources. The
 * test never builds: it leaves the tree as it found it, and a build under the other test
 * files' feet would change what they import. `./pbw test` builds first.
 */
export async function assertBuilt(folders: string[]): Promise<void> {
  const stale = folders.filter((folder) => isStale(join(ROOT, folder)));
  if (stale.length > 0) {
    throw new Error(
      `not built, or built before their sources last changed: ${stale.join(', ')}; run ./pbw build (or pnpm -r run build) first`,
    );
  }
}

/** `pnpm pack`s a workspace package (pnpm turns `workspace:` ranges into versions). Returns the tarball. */
export async function packWorkspace(folder: string, destination: string): Promise<string> {
  const { stdout } = await run('pnpm', ['pack', '--pack-destination', destination], {
    cwd: join(ROOT, folder),
    env: cleanEnv(),
    maxBuffer: 32 * 1024 * 1024,
  });
  const tarball = stdout
    .trim()
    .split('\n')
    .reverse()
    .find((line) => line.trim().endsWith('.tgz'));
  if (!tarball) throw new Error(`pnpm pack in ${folder} printed no tarball:\n${stdout}`);
  return tarball.trim().startsWith('/') ? tarball.trim() : join(destination, tarball.trim());
}

/** Finds the folder of `name` as Node would from `from`: the nearest node_modules/name up the tree. */
async function findInstalled(name: string, from: string): Promise<string | undefined> {
  let dir = from;
  for (;;) {
    const candidate = join(dir, 'node_modules', ...name.split('/'));
    if (existsSync(join(candidate, 'package.json'))) return realpath(candidate);
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The third-party packages the given workspace packages need at run time, as installed in
 * the workspace (dependencies, required peers, present optional ones, recursively), each
 * once per version, with the named third-party packages installed at the root (a connector
 * author's tools, such as typescript and vitest) and theirs: publishing these copies lets npm
 * install everything from the local registry alone.
 */
export async function thirdPartyClosure(
  folders: string[],
  tools: string[] = [],
): Promise<Array<{ name: string; version: string; dir: string }>> {
  const found = new Map<string, { name: string; version: string; dir: string }>();
  const visit = async (dir: string, isWorkspace: boolean) => {
    const pkg = await readPackage(dir);
    const optionalPeers = new Set(
      Object.entries(pkg.peerDependenciesMeta ?? {})
        .filter(([, meta]) => meta.optional)
        .map(([name]) => name),
    );
    const wanted = [
      ...Object.keys(pkg.dependencies ?? {}),
      ...Object.keys(pkg.peerDependencies ?? {}).filter((name) => !optionalPeers.has(name)),
      ...Object.keys(pkg.optionalDependencies ?? {}),
    ];
    for (const name of new Set(wanted)) {
      if (name.startsWith('@plugboard/')) continue;
      const installed = await findInstalled(name, dir);
      if (!installed) {
        if (pkg.optionalDependencies?.[name]) continue;
        throw new Error(
          `${pkg.name}${isWorkspace ? '' : `@${pkg.version}`} needs ${name}, which is not installed in the workspace`,
        );
      }
      const dependency = await readPackage(installed);
      const id = `${dependency.name}@${dependency.version}`;
      if (found.has(id)) continue;
      found.set(id, { name: dependency.name, version: dependency.version, dir: installed });
      await visit(installed, false);
    }
  };
  for (const folder of folders) await visit(join(ROOT, folder), true);
  for (const name of tools) {
    const installed = await findInstalled(name, ROOT);
    if (!installed) throw new Error(`${name} is not installed in the workspace`);
    const tool = await readPackage(installed);
    found.set(`${tool.name}@${tool.version}`, { name: tool.name, version: tool.version, dir: installed });
    await visit(installed, false);
  }
  return [...found.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
}

/**
 * `npm pack`s installed third-party packages as they are, scripts not run, in one npm call.
 * Each folder is copied out of pnpm's store first: npm 11 does not finish packing some
 * packages in place there.
 */
export async function packInstalled(
  dirs: string[],
  destination: string,
  npmrc: string,
  globalNpmrc: string,
): Promise<string[]> {
  if (dirs.length === 0) return [];
  const copies: string[] = [];
  for (const dir of dirs) {
    const pkg = await readPackage(dir);
    const copy = join(destination, '.copies', `${pkg.name.replace('/', '+')}@${pkg.version}`);
    await cp(dir, copy, {
      recursive: true,
      dereference: true,
      filter: (source) => !source.slice(dir.length).split(/[\\/]/).includes('node_modules'),
    });
    copies.push(copy);
  }
  const { stdout } = await npm(['pack', ...copies, '--pack-destination', destination, '--ignore-scripts', '--json'], {
    cwd: destination,
    npmrc,
    globalNpmrc,
  });
  const packed = JSON.parse(stdout) as Array<{ filename: string }>;
  if (packed.length !== dirs.length)
    throw new Error(`npm pack of ${dirs.length} folders printed ${packed.length} tarballs`);
  return packed.map(({ filename }) => join(destination, filename));
}

/**
 * Publishes tarballs to the local registry as `npm publish` does (one PUT of the manifest with
 * the tarball attached), from this process: a publish is then milliseconds, not an npm start.
 * Versions of one package go one after another: the registry locks a package while it writes it.
 */
export async function publishTarballs(registry: { url: string; token: string }, tarballs: string[]): Promise<void> {
  const packed = await Promise.all(
    tarballs.map(async (tarball) => {
      const { stdout } = await run('tar', ['-xzOf', tarball, 'package/package.json'], { maxBuffer: 16 * 1024 * 1024 });
      return { tarball, manifest: JSON.parse(stdout) as PackageJson & Record<string, unknown> };
    }),
  );
  const publishOne = async ({ tarball, manifest }: (typeof packed)[number]) => {
    const data = await readFile(tarball);
    const filename = `${manifest.name.replace(/^@[^/]+\//, '')}-${manifest.version}.tgz`;
    const body = JSON.stringify({
      _id: manifest.name,
      name: manifest.name,
      'dist-tags': { latest: manifest.version },
      versions: {
        [manifest.version]: {
          ...manifest,
          _id: `${manifest.name}@${manifest.version}`,
          dist: {
            tarball: `${registry.url}${manifest.name}/-/${filename}`,
            shasum: createHash('sha1').update(data).digest('hex'),
            integrity: `sha512-${createHash('sha512').update(data).digest('base64')}`,
          },
        },
      },
      _attachments: {
        [filename]: { content_type: 'application/octet-stream', data: data.toString('base64'), length: data.length },
      },
    });
    // A registry on a busy machine may answer a write with a passing 5xx: it is tried again.
    for (let attempt = 1; ; attempt += 1) {
      const answer = await fetch(`${registry.url}${manifest.name.replace('/', '%2f')}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${registry.token}` },
        body,
      });
      if (answer.ok) return;
      const text = await answer.text();
      if (answer.status < 500 || attempt === 5)
        throw new Error(`publishing ${manifest.name}@${manifest.version} failed: ${answer.status} ${text}`);
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  };
  const byName = new Map<string, typeof packed>();
  for (const entry of packed) byName.set(entry.manifest.name, [...(byName.get(entry.manifest.name) ?? []), entry]);
  // A few packages at a time: the registry writes each to disk.
  const queue = [...byName.values()];
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let versions = queue.shift(); versions !== undefined; versions = queue.shift()) {
        for (const entry of versions) await publishOne(entry);
      }
    }),
  );
}

export interface NpmOptions {
  cwd: string;
  npmrc: string;
  globalNpmrc: string;
  cache?: string;
}

/** Runs npm with only the test's configuration: its user and global config files, no inherited npm settings. */
export async function npm(args: string[], options: NpmOptions): Promise<{ stdout: string; stderr: string }> {
  const env = cleanEnv({
    npm_config_userconfig: options.npmrc,
    npm_config_globalconfig: options.globalNpmrc,
    npm_config_update_notifier: 'false',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    ...(options.cache ? { npm_config_cache: options.cache } : {}),
  });
  const full = [
    ...args,
    '--userconfig',
    options.npmrc,
    '--globalconfig',
    options.globalNpmrc,
    ...(options.cache ? ['--cache', options.cache] : []),
  ];
  try {
    return await run('npm', full, { cwd: options.cwd, env, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const failed = error as Error & { stdout?: string; stderr?: string };
    throw new Error(`npm ${args.join(' ')} failed: ${failed.message}\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}`);
  }
}
