import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { bufferIo } from './support.js';

/**
 * `plugboard new`: what it writes and what it refuses. That the scaffold installs, builds,
 * passes its tests, records, runs and publishes is the authoring guide's test
 * (test/guide.test.ts), against a local registry.
 */

const workspaceVersion = async (folder: string) => (JSON.parse(await readFile(join(import.meta.dirname, '..', '..', folder, 'package.json'), 'utf8')) as { version: string }).version;

describe('plugboard new', () => {
  it('writes a connector package named after the key, on the versions of Plugboard it came with', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'plugboard-new-'));
    const { io, stdout } = bufferIo();
    expect(await runCli(['new', 'acme-crm'], { ...io, cwd })).toBe(0);
    const dir = join(cwd, 'acme-crm');
    expect(stdout()).toContain(`files in ${dir}`);
    expect((await readdir(dir, { recursive: true })).filter((file) => !file.endsWith('actions') && !file.endsWith('fixtures') && file !== 'src' && file !== 'test').sort()).toEqual([
      '.gitignore',
      'README.md',
      'openapi.yaml',
      'package.json',
      'src/actions/items-create.ts',
      'src/actions/items-list.ts',
      'src/entities.ts',
      'src/index.ts',
      'test/connector.test.ts',
      'test/fixtures/items-create.json',
      'test/fixtures/items-full.json',
      'test/fixtures/items-since.json',
      'tsconfig.build.json',
      'tsconfig.json',
    ]);
    const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { name: string; plugboard: { sdk: string }; devDependencies: Record<string, string> };
    expect(pkg.name).toBe('plugboard-connector-acme-crm');
    expect(pkg.plugboard.sdk).toBe(`^${await workspaceVersion('sdk')}`);
    expect(pkg.devDependencies).toMatchObject({ '@plugboard/cli': `^${await workspaceVersion('cli')}`, '@plugboard/testing': `^${await workspaceVersion('testing')}` });
    expect(await readFile(join(dir, 'src', 'index.ts'), 'utf8')).toContain("key: 'acme-crm',\n  name: 'Acme Crm',");
    // The recorded fixtures belong to this connector, not to the template's placeholder.
    const fixture = JSON.parse(await readFile(join(dir, 'test', 'fixtures', 'items-full.json'), 'utf8')) as { connector: { key: string } };
    expect(fixture.connector.key).toBe('acme-crm');
    expect(await readFile(join(dir, 'README.md'), 'utf8')).not.toMatch(/\{\{\w+\}\}/);
  });

  it('refuses a name that is no key, and a folder that is not empty, with exit 2 and nothing written', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'plugboard-new-'));
    const badName = bufferIo();
    expect(await runCli(['new', 'Acme_CRM'], { ...badName.io, cwd })).toBe(2);
    expect(badName.stderr()).toMatch(/<name> 'Acme_CRM' must start with a lower case letter/);
    expect(await readdir(cwd)).toEqual([]);

    const taken = join(cwd, 'taken');
    await mkdir(taken);
    await writeFile(join(taken, 'notes.txt'), 'mine');
    const nonEmpty = bufferIo();
    expect(await runCli(['new', 'acme', '--dir', 'taken'], { ...nonEmpty.io, cwd })).toBe(2);
    expect(nonEmpty.stderr()).toMatch(/taken is not empty/);
    expect(await readdir(taken)).toEqual(['notes.txt']);
  });
});
