import { builtinModules } from 'node:module';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ROOT } from './support/packages.js';

/**
 * Libraries are used through their public, documented API only. Every source file of every
 * package, connector and tool (and every test) imports a library only by a path its package
 * documents, which is its `exports` map when it has one (`zod/v4/core` is there, for library
 * authors) and the package itself otherwise (`undici/lib/...`, `ioredis/built/Redis.js`, `x/dist/...`,
 * `x/src/...` are insides), and never reaches into another workspace package's src/ or dist/ by
 * a relative path. Code that ships (everything but tests, which play hostile plugins on purpose)
 * reads no private field of a library's object (`._zod`, `._store`) and does not cast one
 * through `unknown` to read what its type does not show (`as unknown as { client ... }`).
 */

/** Deep paths that packages without an `exports` map document as their API, each with where. */
const DOCUMENTED_DEEP_PATHS: Record<string, string> = {
  'ajv/dist/2020.js': "Ajv's guide, 'JSON Schema draft 2020-12': the Ajv2020 class of ajv/dist/2020",
  'semver/functions/valid.js': "semver's README, 'Usage': one module per function (semver/functions/valid)",
  'semver/functions/satisfies.js': "semver's README, 'Usage': one module per function",
  'semver/ranges/valid.js': "semver's README, 'Usage': one module per function",
};

const SOURCE = /\.(?:ts|mts|cts|tsx|js|mjs|cjs)$/;
const SKIPPED = new Set(['node_modules', 'dist', 'fixtures', 'coverage']);

function sourceFiles(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return SKIPPED.has(entry.name) || entry.name.startsWith('.') ? [] : sourceFiles(path);
    return SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The folders that are one package each: packages/*, connectors/*, tools/* and tools/simulators/*, test. */
function packageFolders(): string[] {
  const children = (parent: string) =>
    readdirSync(join(ROOT, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(ROOT, parent, entry.name));
  return [...children('packages'), ...children('connectors'), ...children('tools'), ...children('tools/simulators')]
    .concat(join(ROOT, 'test'))
    .filter((folder) => existsSync(join(folder, 'package.json')));
}

const FOLDERS = packageFolders();
const FILES = FOLDERS.flatMap((folder) => sourceFiles(folder).map((file) => ({ file, folder })));
const isTest = (file: string) => /(^|\/)test\//.test(relative(ROOT, file));

/** Module specifiers in static and dynamic imports, re-exports, require() and resolve() calls. */
function specifiers(text: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?(?:[\w*${}\s,]+?\s+from\s+)?['"]([^'"]+)['"]/g,
    /\b(?:import|require|resolve)\s*\(\s*['"]([^'"]+)['"]\s*[,)]/g,
  ];
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.push(match[1]!);
  return found;
}

/**
 * The package.json of `name` as Node would find it from `from`'s folder, else as another package
 * of the workspace has it installed (an import of a package the file's own does not depend on is
 * still judged by that package's exports).
 */
function installedManifest(name: string, from: string): { exports?: unknown } | undefined {
  const candidates: string[] = [];
  for (let folder = dirname(from); folder !== dirname(folder); folder = dirname(folder)) candidates.push(folder);
  candidates.push(...FOLDERS);
  for (const folder of candidates) {
    const manifest = join(folder, 'node_modules', name, 'package.json');
    if (existsSync(manifest)) return JSON.parse(readFileSync(manifest, 'utf8'));
  }
  return undefined;
}

/** True when `subpath` (`./v4/core`) is a key of the exports map, or matches one of its `*` patterns. */
function exportsAllow(exports: unknown, subpath: string): boolean {
  if (typeof exports !== 'object' || exports === null || Array.isArray(exports)) return subpath === '.';
  const keys = Object.keys(exports);
  if (!keys.every((key) => key.startsWith('.'))) return subpath === '.'; // conditions only: the root alone
  return keys.some((key) => {
    const star = key.indexOf('*');
    if (star === -1) return key === subpath;
    return (
      subpath.startsWith(key.slice(0, star)) &&
      subpath.endsWith(key.slice(star + 1)) &&
      subpath.length >= key.length - 1
    );
  });
}

/** Why importing `specifier` from `file` reaches into a library's insides, or undefined when it does not. */
function privateImport(specifier: string, file: string, folder: string): string | undefined {
  if (specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0]!)) return undefined;
  if (specifier.startsWith('.')) {
    // Root files (tsup.package.ts, scripts/) are shared; another package's source or build is its inside.
    const target = join(dirname(file), specifier);
    const other = FOLDERS.find((candidate) => candidate !== folder && !relative(candidate, target).startsWith('..'));
    if (other === undefined || !/^(?:src|dist)(?:\/|$)/.test(relative(other, target))) return undefined;
    return `a relative path into another package's ${relative(ROOT, target)}`;
  }
  if (/^[a-z]+:/i.test(specifier)) return undefined; // data:, file: URLs made at run time
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  const subpath = `.${specifier.slice(name.length)}`;
  if (subpath === '.') return undefined;
  if (specifier in DOCUMENTED_DEEP_PATHS) return undefined;
  const manifest = installedManifest(name, file);
  if (manifest === undefined) return undefined; // installed nowhere: a name in a template or a generated package
  if (manifest.exports === undefined && subpath === './package.json') return undefined;
  if (manifest.exports === undefined) return `'${name}' has no exports map: '${specifier}' is inside it`;
  if (!exportsAllow(manifest.exports, subpath)) return `'${subpath}' is not in the exports of '${name}'`;
  return undefined;
}

const PRIVATE_READS: Array<[RegExp, string]> = [
  // `_meta` is the Model Context Protocol's own public field of every request and result.
  [
    /(?:\?\.|\.)\s*_(?!meta\b)[A-Za-z]\w*|\[\s*['"`]_(?!meta\b)[A-Za-z]\w*['"`]\s*\]/,
    'reads a private (underscore) field',
  ],
  // The one cast through unknown that is not reaching in: a CommonJS module's default export.
  [
    /\bas\s+unknown\s+as\s+\{(?!\s*default\?\s*:\s*unknown\s*\})/,
    'casts through unknown to read fields its type does not show',
  ],
];

/** Each line of `text` that reads a private field, with why. */
function privateReads(text: string): string[] {
  return text.split('\n').flatMap((line, index) => {
    if (/^\s*(?:\/\/|\*|\/\*)/.test(line)) return [];
    return PRIVATE_READS.filter(([pattern]) => pattern.test(line)).map(
      ([, why]) => `line ${index + 1} ${why}: ${line.trim()}`,
    );
  });
}

function offences(file: string, folder: string): string[] {
  const text = readFileSync(file, 'utf8');
  const imports = specifiers(text).flatMap((specifier) => {
    const why = privateImport(specifier, file, folder);
    return why ? [`imports '${specifier}': ${why}`] : [];
  });
  return isTest(file) ? imports : [...imports, ...privateReads(text)];
}

describe('no reaching into other libraries', () => {
  test('finds the source of every package, connector and tool', () => {
    const names = new Set(FILES.map(({ file }) => relative(ROOT, file)));
    for (const expected of [
      'packages/sdk/src/index.ts',
      'packages/cli/src/main.ts',
      'connectors/descript/src/index.ts',
      'tools/bench/lib.mjs',
    ]) {
      expect(names).toContain(expected);
    }
  });

  test('no file imports a private path of a library or reads a private field', () => {
    const found = FILES.flatMap(({ file, folder }) => {
      const name = relative(ROOT, file).split(sep).join('/');
      return offences(file, folder).map((offence) => `${name}: ${offence}`);
    });
    expect(found).toEqual([]);
  });

  test('knows a private path and a private read when it sees one', () => {
    const file = join(ROOT, 'packages/sdk/src/index.ts');
    const folder = join(ROOT, 'packages/sdk');
    expect(privateImport('zod/v4/core', file, folder)).toBeUndefined();
    expect(privateImport('zod', file, folder)).toBeUndefined();
    expect(privateImport('undici/lib/dispatcher/pool.js', file, folder)).toMatch(/no exports map/);
    expect(privateImport('ioredis/built/Redis.js', file, folder)).toMatch(/no exports map/);
    expect(privateImport('zod/src/v4/core/core.js', file, folder)).toMatch(/not in the exports of 'zod'/);
    expect(privateImport('../../runtime/src/index.js', join(ROOT, 'packages/sdk/src/x.ts'), folder)).toMatch(
      /into another package's packages\/runtime\/src/,
    );
    expect(privateImport('../../tsup.package.js', join(ROOT, 'packages/sdk/tsup.config.ts'), folder)).toBeUndefined();
    expect(specifiers(`import type { X } from 'a/b';\nconst m = await import('c/d');\nexport * from "e";`)).toEqual([
      'a/b',
      'e',
      'c/d',
    ]);
    expect(privateReads('const def = schema._zod.def;')).toHaveLength(1);
    expect(privateReads("const s = limiter['_store'];")).toHaveLength(1);
    expect(privateReads('const c = connection as unknown as { client?: Redis };')).toHaveLength(1);
    expect(privateReads('const f = (plugin as unknown as { default?: unknown }).default;')).toEqual([]);
  });
});
