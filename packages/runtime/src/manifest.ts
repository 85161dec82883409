import { readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
// The three functions, not the whole package: loading all of semver costs a cold `plugboard run` tens of milliseconds.
import satisfies from 'semver/functions/satisfies.js';
import valid from 'semver/functions/valid.js';
import validRange from 'semver/ranges/valid.js';

/**
 * A connector package says what it is in its `package.json`:
 * `"plugboard": { "connector": "./dist/index.js", "sdk": "^1.0.0" }`.
 * This module reads that field and checks it; it imports nothing. The few small files are
 * read synchronously, as Node's own module loader does: on a cold process the first
 * asynchronous file call waits for the thread pool to start, longer than the whole check.
 */

export interface PluginManifest {
  /** The package's name, from `package.json`. */
  package: string;
  version: string;
  /** The package's folder (real path, symbolic links resolved). */
  dir: string;
  /** The entry as written in the manifest, e.g. `./dist/index.js`. */
  connector: string;
  /** Real path of the entry file (symbolic links resolved), always inside the package. */
  entryPath: string;
  /** The SDK versions the connector works with (a semver range). */
  sdk: string;
}

/** A plugin that cannot be loaded; `reason` says why in a sentence a person can act on. */
export class PluginLoadError extends Error {
  readonly package: string;
  readonly reason: string;

  constructor(packageName: string, reason: string, options?: { cause?: unknown }) {
    super(`${packageName}: ${reason}`, options);
    this.name = 'PluginLoadError';
    this.package = packageName;
    this.reason = reason;
  }
}

export interface PackageJson {
  name?: unknown;
  version?: unknown;
  plugboard?: unknown;
  [field: string]: unknown;
}

/** Reads `dir/package.json`; `label` names the plugin in errors until its own name is known. */
export async function readPackageJson(dir: string, label: string = dir): Promise<PackageJson> {
  let text: string;
  try {
    text = readFileSync(join(dir, 'package.json'), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new PluginLoadError(
      label,
      code === 'ENOENT'
        ? `no package.json in ${dir}`
        : `cannot read ${join(dir, 'package.json')}: ${(error as Error).message}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new PluginLoadError(label, `package.json is not valid JSON: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new PluginLoadError(label, 'package.json is not a JSON object');
  return parsed as PackageJson;
}

/** True when the package declares itself a Plugboard connector (has a `plugboard` field). */
export function hasManifest(pkg: PackageJson): boolean {
  return pkg.plugboard !== undefined;
}

/**
 * Checks the `plugboard` field of a package and returns the manifest. Refuses, with the reason:
 * no manifest, an entry that is not a relative path inside the package, does not exist or is a
 * link to a file outside it, a missing or invalid SDK range.
 */
export async function readManifest(dir: string, label?: string): Promise<PluginManifest> {
  const pkg = await readPackageJson(dir, label);
  const name = typeof pkg.name === 'string' && pkg.name ? pkg.name : (label ?? dir);
  const fail = (reason: string): never => {
    throw new PluginLoadError(name, reason);
  };
  if (typeof pkg.name !== 'string' || !pkg.name) fail('package.json has no name');
  if (typeof pkg.version !== 'string' || !valid(pkg.version))
    fail(`package.json version must be a semantic version, not ${JSON.stringify(pkg.version)}`);
  if (pkg.plugboard === undefined) {
    fail(
      'no plugboard manifest: package.json has no "plugboard" field (expected "plugboard": { "connector": "./dist/index.js", "sdk": "^0.1.0" })',
    );
  }
  const manifest = pkg.plugboard;
  if (manifest === null || typeof manifest !== 'object' || Array.isArray(manifest)) {
    return fail('the "plugboard" field of package.json must be an object { "connector", "sdk" }');
  }
  const { connector, sdk } = manifest as Record<string, unknown>;
  if (typeof connector !== 'string' || !connector)
    fail(
      'the plugboard manifest has no "connector" entry (the path of the module whose default export is the connector)',
    );
  if (typeof sdk !== 'string' || !sdk)
    fail('the plugboard manifest has no "sdk" range (the @plugboard/sdk versions the connector works with)');
  const range = sdk as string;
  if (validRange(range) === null)
    fail(`the plugboard manifest's sdk range ${JSON.stringify(range)} is not a valid semver range`);
  const entry = connector as string;
  if (isAbsolute(entry))
    fail(
      `the plugboard manifest's connector entry must be a path relative to the package, not ${JSON.stringify(entry)}`,
    );
  if (!isInside(dir, resolve(dir, entry)))
    fail(`the plugboard manifest's connector entry ${JSON.stringify(entry)} points outside the package`);
  const found = statSync(resolve(dir, entry), { throwIfNoEntry: false });
  if (!found?.isFile())
    fail(`the connector entry ${entry} does not exist in the package (was the package built before it was packed?)`);
  // The path as written may stay inside while a symlink on the way leads out: what is imported is the real file.
  const entryPath = realpathSync(resolve(dir, entry));
  if (!isInside(realpathSync(dir), entryPath)) {
    fail(
      `the plugboard manifest's connector entry ${JSON.stringify(entry)} is a link to ${entryPath}, outside the package`,
    );
  }
  return { package: name, version: pkg.version as string, dir, connector: entry, entryPath, sdk: range };
}

function isInside(dir: string, path: string): boolean {
  const inside = relative(dir, path);
  return !(inside === '' || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside));
}

/**
 * True when the host's SDK version lies in the plugin's range. Pre-releases of the host match
 * only ranges that name a pre-release of the same version, as npm does.
 */
export function sdkCompatible(hostSdkVersion: string, range: string): boolean {
  return satisfies(hostSdkVersion, range);
}

export function checkSdkRange(manifest: PluginManifest, hostSdkVersion: string): void {
  if (!sdkCompatible(hostSdkVersion, manifest.sdk)) {
    throw new PluginLoadError(
      manifest.package,
      `incompatible SDK range: the connector needs @plugboard/sdk ${manifest.sdk}, the host has ${hostSdkVersion}`,
    );
  }
}
