import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './support/packages.js';

/**
 * `api:check` (scripts/api-report.mjs --check) on a workspace of one throwaway package in a
 * temporary folder: its main entry must export every type its declarations mention; its
 * `./host` entry may also rely on the main entry, which its users import too.
 */

const run = promisify(execFile);
let root: string;
let folder: string;

/** Runs the report script on the temporary workspace; resolves with its exit code and what it printed. */
async function report(...args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [join(ROOT, 'scripts', 'api-report.mjs'), '--root', root, ...args],
      { cwd: root },
    );
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

/**
 * Writes the package's built declarations: the main entry, `index.d.ts`, the `./host` entry, and
 * a chunk both import from, as a bundler writes them.
 */
async function declarations(index: string, host: string): Promise<void> {
  await writeFile(join(folder, 'dist', 'index.d.ts'), index);
  await writeFile(join(folder, 'dist', 'host.d.ts'), host);
  await writeFile(join(folder, 'dist', 'chunk.d.ts'), '/** A size. */\nexport interface Hidden { size: number }\n');
}

const HOST = [
  "import type { Shape } from './index.js';",
  '/** Uses a type of the main entry. */',
  'export declare function draw(shape: Shape): string;',
  '/** Only a host needs it. */',
  'export interface HostOnly { id: string }',
  '',
].join('\n');

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'plugboard-api-report-')));
  folder = join(root, 'packages', 'demo');
  await mkdir(join(folder, 'dist'), { recursive: true });
  // The reports are read with Node's types, as the workspace's own are.
  await mkdir(join(root, 'node_modules', '@types'), { recursive: true });
  await symlink(join(ROOT, 'node_modules', '@types', 'node'), join(root, 'node_modules', '@types', 'node'), 'dir');
  await writeFile(
    join(folder, 'package.json'),
    JSON.stringify({
      name: '@demo/pkg',
      version: '1.0.0',
      type: 'module',
      exports: {
        '.': { types: './dist/index.d.ts', default: './dist/index.js' },
        './host': { types: './dist/host.d.ts', default: './dist/host.js' },
      },
    }),
  );
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

// A run of the script is about 4 s of CPU (TypeScript reads the standard library's declarations
// each time), and far longer in wall time on a machine that is busy with other work.
describe('api:check and forgotten exports', { timeout: 300_000 }, () => {
  it('fails naming each type an entry mentions but does not export, with the entry and its package', async () => {
    await declarations(
      [
        "import type { HostOnly } from './host.js';",
        "import type { Hidden } from './chunk.js';",
        '/** A shape. */',
        'export interface Shape { hidden: Hidden }',
        '/** Mentions a type that only the ./host entry exports. */',
        'export declare function make(size: number, owner: HostOnly): Shape;',
        '',
      ].join('\n'),
      HOST,
    );
    const rewrite = await report();
    // The reports are written all the same, and the rewrite says what the check will refuse.
    expect(rewrite.output).toContain('updated packages/demo/api/index.api.md');
    expect(rewrite.code).toBe(1);

    const check = await report('--check');
    expect(check.code).toBe(1);
    expect(check.output).toContain('@demo/pkg: Hidden');
    expect(check.output).toContain('@demo/pkg: HostOnly');
    // The host entry's mention of the main entry's Shape is not forgotten; the report itself is current.
    expect(check.output).not.toContain('Shape');
    expect(check.output).not.toContain('does not say so');
  });

  it('passes once the main entry exports them', async () => {
    await declarations(
      [
        "import type { HostOnly } from './host.js';",
        "import type { Hidden } from './chunk.js';",
        'export type { Hidden };',
        '/** A shape. */',
        'export interface Shape { hidden: Hidden }',
        '/** Mentions a type of the host entry, which the main entry now exports too. */',
        'export declare function make(size: number, owner: HostOnly): Shape;',
        'export type { HostOnly };',
        '',
      ].join('\n'),
      HOST,
    );
    expect((await report()).code).toBe(0);
    expect(await readFile(join(folder, 'api', 'index.api.md'), 'utf8')).toContain('export interface Hidden');
    expect(await report('--check')).toEqual({ code: 0, output: '' });
  });
});
