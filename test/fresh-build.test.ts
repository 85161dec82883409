import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshBuild, isStale } from '../scripts/fresh-build.mjs';

/**
 * `./pbw plugboard` and `./pbw demo` build only what changed (scripts/fresh-build.mjs), on a
 * workspace of two packages in a temporary folder whose builds count themselves: `lib`, and
 * `app` that depends on it. File times are set, not waited for.
 */

let root: string;
const HOUR = 3600;

async function writePackage(folder: string, name: string, dependencies: Record<string, string> = {}): Promise<void> {
  const dir = join(root, 'packages', folder);
  await mkdir(join(dir, 'src'), { recursive: true });
  await writeFile(join(dir, 'src', 'index.js'), 'export {};\n');
  // The build appends a line to a log outside dist/ and writes dist/index.js.
  const build = `node -e "const fs=require('fs');fs.appendFileSync('../../builds.log','${name}\\\\n');fs.mkdirSync('dist',{recursive:true});fs.writeFileSync('dist/index.js','')"`;
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify({ name, version: '1.0.0', scripts: { build }, dependencies }),
  );
}

async function builds(): Promise<string[]> {
  const log = await readFile(join(root, 'builds.log'), 'utf8').catch(() => '');
  await rm(join(root, 'builds.log'), { force: true });
  return log.split('\n').filter(Boolean);
}

/** Sets a file's times `seconds` from now. */
async function age(file: string, seconds: number): Promise<void> {
  const at = Date.now() / 1000 + seconds;
  await utimes(file, at, at);
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'plugboard-fresh-'));
  await writeFile(join(root, 'pnpm-workspace.yaml'), 'packages:\n  - packages/*\n');
  await writePackage('lib', 'lib');
  await writePackage('app', 'app', { lib: 'workspace:^' });
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('freshBuild', () => {
  it('builds a package and its workspace dependencies when they have no dist/, dependencies first', async () => {
    expect(isStale(join(root, 'packages', 'app'), root)).toBe(true);
    expect(await freshBuild(['app'], root)).toEqual(['lib', 'app']);
    expect(await builds()).toEqual(['lib', 'app']);
  });

  it('builds nothing when every dist/ is newer than its sources', async () => {
    for (const folder of ['lib', 'app']) {
      for (const file of ['src/index.js', 'package.json']) await age(join(root, 'packages', folder, file), -HOUR);
    }
    expect(await freshBuild(['app'], root)).toEqual([]);
    expect(await builds()).toEqual([]);
  });

  it('rebuilds a package whose source changed after its build, and what depends on it', async () => {
    await age(join(root, 'packages', 'lib', 'src', 'index.js'), HOUR);
    expect(await freshBuild(['app'], root)).toEqual(['lib', 'app']);
    expect(await builds()).toEqual(['lib', 'app']);
  });

  it('rebuilds only the package that changed when nothing it depends on did', async () => {
    for (const folder of ['lib', 'app']) {
      for (const file of ['src/index.js', 'package.json']) await age(join(root, 'packages', folder, file), -HOUR);
    }
    await age(join(root, 'packages', 'app', 'package.json'), HOUR);
    expect(await freshBuild(['app'], root)).toEqual(['app']);
    expect(await builds()).toEqual(['app']);
  });
});

describe('freshBuild, reporting', () => {
  it('says what it builds before each build, and nothing when nothing is stale', async () => {
    await age(join(root, 'packages', 'lib', 'src', 'index.js'), 2 * HOUR);
    const lines: string[] = [];
    expect(await freshBuild(['app'], root, (line) => lines.push(line))).toEqual(['lib', 'app']);
    await builds();
    expect(lines).toEqual([
      'building lib (1 of 2)',
      expect.stringMatching(/^built lib in \d+(\.\d)? s$/),
      'building app (2 of 2)',
      expect.stringMatching(/^built app in \d+(\.\d)? s$/),
    ]);
    lines.length = 0;
    for (const folder of ['lib', 'app']) {
      for (const file of ['src/index.js', 'package.json']) await age(join(root, 'packages', folder, file), -HOUR);
    }
    expect(await freshBuild(['app'], root, (line) => lines.push(line))).toEqual([]);
    expect(lines).toEqual([]);
  });
});

describe('scripts/fresh-build.mjs, the command', () => {
  it('says on stderr when each build starts and ends when stderr is not a terminal (CI, a pipe)', async () => {
    // The command builds the workspace it sits in: a copy of it in the temporary workspace.
    await mkdir(join(root, 'scripts'), { recursive: true });
    await copyFile(
      join(import.meta.dirname, '..', 'scripts', 'fresh-build.mjs'),
      join(root, 'scripts', 'fresh-build.mjs'),
    );
    await age(join(root, 'packages', 'lib', 'src', 'index.js'), 3 * HOUR);
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [
      join(root, 'scripts', 'fresh-build.mjs'),
      'app',
    ]);
    await builds();
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toEqual([
      'building lib (1 of 2)',
      expect.stringMatching(/^built lib in \d+(\.\d)? s$/),
      'building app (2 of 2)',
      expect.stringMatching(/^built app in \d+(\.\d)? s$/),
    ]);
  });
});
