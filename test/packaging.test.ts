import { execFile } from 'node:child_process';
import { mkdtemp, readdir, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { assertBuilt, cleanEnv, packWorkspace, readPackage, ROOT } from './support/packages.js';

/**
 * Every publishable package as npm would receive it: packed, then linted by publint and
 * checked by arethetypeswrong (the types resolve as Node and bundlers resolve the code), with
 * a LICENSE and a README inside, and loadable with require() from CommonJS.
 */

const run = promisify(execFile);
const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);
const FOLDERS = [
  ...(await readdir(join(ROOT, 'packages'))).map((name) => `packages/${name}`),
  ...(await readdir(join(ROOT, 'connectors'))).map((name) => `connectors/${name}`),
].sort();

let tmp: string;
const tarballs = new Map<string, string>();

beforeAll(async () => {
  await assertBuilt(FOLDERS);
  tmp = await realpath(await mkdtemp(join(tmpdir(), 'plugboard-packaging-')));
  for (const folder of FOLDERS) tarballs.set(folder, await packWorkspace(folder, tmp));
});

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** Runs a checker; resolves with its exit code and everything it printed. */
async function check(command: string, args: string[], cwd = tmp): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(command, args, {
      cwd,
      env: cleanEnv({ NO_COLOR: '1', FORCE_COLOR: '0' }),
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === 'number' ? failed.code : 1,
      output: `${failed.stdout ?? ''}${failed.stderr ?? ''}`,
    };
  }
}

describe.each(FOLDERS)('%s, packed', (folder) => {
  test('publint finds nothing, warnings included', async () => {
    const result = await check(bin('publint'), ['run', tarballs.get(folder)!, '--strict']);
    expect(result.code, result.output).toBe(0);
  });

  // The packages are ES modules only: Node 22.12 and later require() them, so a CommonJS
  // caller is served (checked below), which TypeScript's node16-cjs model cannot see.
  test('arethetypeswrong finds nothing for an ES-module-only package', async () => {
    const result = await check(bin('attw'), [
      tarballs.get(folder)!,
      '--profile',
      'esm-only',
      '--format',
      'table-flipped',
    ]);
    expect(result.code, result.output).toBe(0);
  });

  test('holds a LICENSE and a README', async () => {
    const { stdout } = await run('tar', ['-tzf', tarballs.get(folder)!]);
    const files = stdout.split('\n');
    expect(files).toContain('package/LICENSE');
    expect(files).toContain('package/README.md');
  });

  test('loads with require() from CommonJS, every entry (no top-level await anywhere it loads)', async () => {
    const { name, exports } = await readPackage(join(ROOT, folder));
    const entries = Object.keys(exports ?? { '.': null })
      .filter((subpath) => subpath !== './package.json')
      .map((subpath) => `${name}${subpath.slice(1)}`);
    // From the package's own folder its name resolves through its exports, as an installed copy's would.
    const script = `for (const entry of ${JSON.stringify(entries)}) { const loaded = require(entry); if (Object.keys(loaded).length === 0) throw new Error(entry + ' exports nothing'); } console.log('ok');`;
    const result = await check(process.execPath, ['--input-type=commonjs', '-e', script], join(ROOT, folder));
    expect(result, result.output).toMatchObject({ code: 0, output: 'ok\n' });
  });

  test('arethetypeswrong checks every entry of the exports map', async () => {
    const { exports } = await readPackage(join(ROOT, folder));
    const output = await run(bin('attw'), [tarballs.get(folder)!, '--profile', 'esm-only', '--format', 'json'], {
      cwd: tmp,
      env: cleanEnv({ NO_COLOR: '1' }),
      maxBuffer: 16 * 1024 * 1024,
    }).then(
      ({ stdout }) => stdout,
      (error: { stdout?: string }) => error.stdout ?? '',
    );
    const { analysis } = JSON.parse(output) as { analysis: { entrypoints: Record<string, unknown> } };
    expect(Object.keys(analysis.entrypoints).sort()).toEqual(Object.keys(exports ?? { '.': null }).sort());
  });
});
