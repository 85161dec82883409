import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadOpenApiDocument } from '../src/openapi-document.js';
import { runCli } from '../src/index.js';
import { startMockServer } from '../src/mock/server.js';
import { bufferIo } from './support.js';

/**
 * `plugboard new`: what it writes and what it refuses. That the scaffold installs, builds,
 * passes its tests, records, runs and publishes is the authoring guide's test
 * (test/guide.test.ts), against a local registry.
 */

const workspaceVersion = async (folder: string) =>
  (
    JSON.parse(await readFile(join(import.meta.dirname, '..', '..', folder, 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;

describe('plugboard new', () => {
  it('writes a connector package named after the key, on the versions of Plugboard it came with', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'plugboard-new-'));
    const { io, stdout } = bufferIo();
    expect(await runCli(['new', 'acme-crm'], { ...io, cwd })).toBe(0);
    const dir = join(cwd, 'acme-crm');
    expect(stdout()).toContain(`files in ${dir}`);
    expect(
      (await readdir(dir, { recursive: true }))
        .filter((file) => !file.endsWith('actions') && !file.endsWith('fixtures') && file !== 'src' && file !== 'test')
        .sort(),
    ).toEqual([
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
    const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as {
      name: string;
      plugboard: { sdk: string };
      devDependencies: Record<string, string>;
    };
    expect(pkg.name).toBe('plugboard-connector-acme-crm');
    expect(pkg.plugboard.sdk).toBe(`^${await workspaceVersion('sdk')}`);
    expect(pkg.devDependencies).toMatchObject({
      '@plugboard/cli': `^${await workspaceVersion('cli')}`,
      '@plugboard/testing': `^${await workspaceVersion('testing')}`,
    });
    expect(await readFile(join(dir, 'src', 'index.ts'), 'utf8')).toContain("key: 'acme-crm',\n  name: 'Acme Crm',");
    // The recorded fixtures belong to this connector, not to the template's placeholder.
    const fixture = JSON.parse(await readFile(join(dir, 'test', 'fixtures', 'items-full.json'), 'utf8')) as {
      connector: { key: string };
    };
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

const execFileAsync = promisify(execFile);
const WORKSPACE = join(import.meta.dirname, '..', '..', '..');
const DESCRIPT_OPENAPI = join(WORKSPACE, '..', 'shared', 'reference', 'descript-openapi-1.2.yaml');

/** What `npm install` would put in a scaffold's node_modules, linked from the workspace. */
async function linkDependencies(dir: string): Promise<void> {
  const modules = join(dir, 'node_modules');
  await mkdir(join(modules, '@plugboard'), { recursive: true });
  await mkdir(join(modules, '@types'), { recursive: true });
  for (const name of ['sdk', 'testing', 'cli'])
    await symlink(join(WORKSPACE, 'packages', name), join(modules, '@plugboard', name));
  await symlink(await realpath(join(WORKSPACE, 'packages', 'sdk', 'node_modules', 'zod')), join(modules, 'zod'));
  for (const name of ['typescript', 'vitest', '@types/node'])
    await symlink(await realpath(join(WORKSPACE, 'node_modules', name)), join(modules, name));
}

describe('plugboard new --from-openapi', () => {
  it("generates actions with zod schemas from operations of Descript's document: it builds, records against plugboard mock, and passes the standard suite", async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'plugboard-new-openapi-'));
    const created = bufferIo();
    const operations = ['listProjects', 'getProject', 'importProjectMedia', 'getStatus'];
    expect(
      await runCli(['new', 'descript-gen', '--from-openapi', DESCRIPT_OPENAPI, '--operations', operations.join(',')], {
        ...created.io,
        cwd,
      }),
      created.stderr(),
    ).toBe(0);
    const dir = join(cwd, 'descript-gen');
    expect((await readdir(join(dir, 'src', 'actions'))).sort()).toEqual([
      'project_media.create.ts',
      'projects.get.ts',
      'projects.list.ts',
      'status.get.ts',
    ]);
    const list = await readFile(join(dir, 'src', 'actions', 'projects.list.ts'), 'utf8');
    expect(list).toContain("direction: 'source',");
    expect(list).toContain('limit: z.number().int().min(1).max(100).optional(),');
    expect(Math.max(...list.split('\n').map((line) => line.length))).toBeLessThanOrEqual(160);
    expect(await readFile(join(dir, 'src', 'actions', 'project_media.create.ts'), 'utf8')).toContain(
      'effect: { writes: true, idempotent: false, destructive: false },',
    );
    expect(await readFile(join(dir, 'openapi.yaml'), 'utf8')).toBe(await readFile(DESCRIPT_OPENAPI, 'utf8'));

    await linkDependencies(dir);
    const tsc = join(dir, 'node_modules', 'typescript', 'bin', 'tsc');
    // The type check of src and test needs nothing the steps below make: it runs beside them, awaited last.
    const typechecked = execFileAsync(process.execPath, [tsc, '--noEmit'], { cwd: dir });
    typechecked.catch(() => undefined);
    await execFileAsync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: dir });

    // Record each action's scenario against the document's stand-in, as the README says.
    // Fewer projects than a page holds: the generated list makes one request, and that read is whole.
    const mock = await startMockServer(await loadOpenApiDocument(join(dir, 'openapi.yaml')), { records: 10 });
    try {
      const readme = await readFile(join(dir, 'README.md'), 'utf8');
      const commands = [
        ...readme.matchAll(
          /^npx plugboard record (\S+) --input '([^']*)' --scenario (\S+) --base-url http:\/\/127\.0\.0\.1:4010\/v1$/gm,
        ),
      ];
      expect(commands.map((command) => command[1])).toEqual([
        'projects.list',
        'projects.get',
        'project_media.create',
        'status.get',
      ]);
      for (const [, action, input, scenario] of commands) {
        const recorded = bufferIo({ PLUGBOARD_CREDENTIAL: 'stand-in-token' });
        const argv = [
          'record',
          action!,
          '--input',
          input!,
          '--scenario',
          scenario!,
          '--base-url',
          mock.url,
          '--connector',
          dir,
        ];
        expect(await runCli(argv, { ...recorded.io, cwd: dir }), recorded.stderr()).toBe(0);
      }
    } finally {
      await mock.close();
    }
    const suite = await execFileAsync(process.execPath, [join(dir, 'node_modules', 'vitest', 'vitest.mjs'), 'run'], {
      cwd: dir,
      env: { ...process.env, CI: 'true' },
    }).catch((error: { stdout: string; stderr: string }) => ({
      stdout: `${error.stdout}\n${error.stderr}`,
      failed: true,
    }));
    expect('failed' in suite ? suite.stdout : '').toBe('');
    await typechecked;
  }, 120_000);

  it('refuses an operationId the document lacks, naming those it has, before writing anything', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'plugboard-new-openapi-'));
    const refused = bufferIo();
    expect(
      await runCli(['new', 'gen', '--from-openapi', DESCRIPT_OPENAPI, '--operations', 'listProjects,nope'], {
        ...refused.io,
        cwd,
      }),
    ).toBe(2);
    expect(refused.stderr()).toMatch(
      /--operations: no operation 'nope' in the document; it has agentEditJob, cancelJob, .*listProjects/,
    );
    expect(JSON.parse(refused.stderr().trim()).path).toBe('/cli/new/gen');
    expect(await readdir(cwd)).toEqual([]);
  });
});
