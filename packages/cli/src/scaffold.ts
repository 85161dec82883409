import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from './usage.js';

/**
 * A new connector package from the template in `templates/connector/`: real files, each
 * `{{token}}` replaced (the key, its title, the package name and the versions of the
 * Plugboard packages this CLI came with, so a scaffold installs what it was made for).
 */

export interface ScaffoldOptions {
  /** The connector key and the last part of the package name: lower case letters, digits and dashes. */
  name: string;
  /** The folder to create; it may exist if empty. */
  dir: string;
}

export interface Scaffold {
  dir: string;
  /** The files written, relative to `dir`. */
  files: string[];
}

const NAME = /^[a-z][a-z0-9-]{0,49}$/;
const TEMPLATE = fileURLToPath(new URL('../templates/connector/', import.meta.url));
// npm leaves a `.gitignore` out of a package, and tools would take the template's package.json
// and test file for the CLI's own: they are stored without the dot, or with `.tmpl` after.
const RENAMED: Record<string, string> = { gitignore: '.gitignore' };
const targetName = (name: string) => RENAMED[name] ?? name.replace(/\.tmpl$/, '');

function versionOf(specifier: string): string {
  return (createRequire(import.meta.url)(specifier) as { version: string }).version;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

export async function scaffoldConnector({ name, dir }: ScaffoldOptions): Promise<Scaffold> {
  if (!NAME.test(name)) {
    throw new UsageError(`<name> '${name}' must start with a lower case letter and hold only lower case letters, digits and dashes (at most 50): it is the connector key and part of the package name`);
  }
  if (existsSync(dir) && (await readdir(dir)).length > 0) throw new UsageError(`${dir} is not empty: scaffold into a new or empty folder (--dir)`);
  const tokens: Record<string, string> = {
    key: name,
    title: name
      .split('-')
      .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
      .join(' '),
    package: `plugboard-connector-${name}`,
    cliVersion: versionOf('../package.json'),
    sdkVersion: versionOf('@plugboard/sdk/package.json'),
    testingVersion: versionOf('@plugboard/testing/package.json'),
  };
  const files: string[] = [];
  for (const file of await filesUnder(TEMPLATE)) {
    const text = (await readFile(join(TEMPLATE, file), 'utf8')).replace(/\{\{(\w+)\}\}/g, (whole, token: string) => tokens[token] ?? whole);
    const target = join(dirname(file), targetName(basename(file)));
    await mkdir(join(dir, dirname(target)), { recursive: true });
    await writeFile(join(dir, target), text, { flag: 'wx' });
    files.push(target);
  }
  return { dir, files: files.sort() };
}
