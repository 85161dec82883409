import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { jobsList, projectsList } from '@plugboard/connector-descript';
import type { Action, Paginator } from '@plugboard/sdk';
import { describe, expect, it } from 'vitest';
import { loadOpenApiDocument, operationsOf } from '../src/openapi-document.js';
import { runCli } from '../src/index.js';
import { startMockServer } from '../src/mock/server.js';
import {
  DESCRIPT_OPENAPI,
  entityNames,
  linkDependencies,
  recordAsReadmeSays,
  suiteFailures,
  tsc,
} from './scaffold-support.js';
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

/** What a paginator does with the pages of a list like Descript's: its records, first request, next requests and problems. */
function pagingOf(paginator: Paginator) {
  const answer = (data: unknown) => ({ status: 200, data, header: () => null, requestId: undefined });
  const request = { method: 'GET' as const, path: '/projects', query: { limit: 100 } };
  const page = answer({ data: [{ id: 'a' }], pagination: { next_cursor: 'c2' } });
  const last = answer({ data: [{ id: 'b' }], pagination: {} });
  return {
    recordsPath: paginator.recordsPath,
    first: paginator.first(request),
    records: paginator.records(page),
    next: paginator.next(page, request, [{ id: 'a' }], 1),
    afterLast: paginator.next(last, request, [{ id: 'b' }], 2),
    problems: paginator.problems?.(),
  };
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
      'project.get.ts',
      'project_media.import.ts',
      'projects.list.ts',
      'status.get.ts',
    ]);
    // The data types are the records, named from what they are, once each; a field the document requires is required.
    expect(await entityNames(dir)).toEqual(['Project', 'ProjectDetail', 'ProjectMediaImportResult', 'Status']);
    expect(await readFile(join(dir, 'src', 'entities.ts'), 'utf8')).toMatch(
      /^export const Project = z\n {2}\.looseObject\(\{\n {4}id: z\.string\(\)\.describe\('Project ID'\),\n {4}name: /m,
    );
    const list = await readFile(join(dir, 'src', 'actions', 'projects.list.ts'), 'utf8');
    expect(list).toContain("direction: 'source',");
    // The paginator found in the document is declared, and the read leaves the cursor to it.
    expect(list).toContain(
      [
        '  paginator: cursorPaginator({',
        "    records: 'data',",
        "    cursor: { from: 'pagination.next_cursor', to: { query: 'cursor' } },",
        "    stop: ['empty-page'],",
        '  }),',
      ].join('\n'),
    );
    expect(list).not.toContain('cursor: z.');
    expect(list).toContain("limit: input['limit'] ?? 100,");
    expect(Math.max(...list.split('\n').map((line) => line.length))).toBeLessThanOrEqual(120);
    expect(await readFile(join(dir, 'src', 'actions', 'project_media.import.ts'), 'utf8')).toContain(
      'effect: { writes: true, idempotent: false, destructive: false },',
    );
    // The stand-in's document holds the chosen operations and what they reference, not the whole document.
    const standIn = await loadOpenApiDocument(join(dir, 'openapi.yaml'));
    expect(
      operationsOf(standIn)
        .map((entry) => entry.operation.operationId)
        .sort(),
    ).toEqual(['getProject', 'getStatus', 'importProjectMedia', 'listProjects']);

    await linkDependencies(dir);
    // The type check of src and test needs nothing the steps below make: it runs beside them, awaited last.
    const typechecked = tsc(dir, '--noEmit');
    typechecked.catch(() => undefined);
    await tsc(dir, '-p', 'tsconfig.build.json');

    // Record each action's scenario against the document's stand-in, as the README says.
    // Fewer projects than a page holds: the generated list makes one request, and that read is whole.
    const mock = await startMockServer(await loadOpenApiDocument(join(dir, 'openapi.yaml')), { records: 10 });
    try {
      // The incremental sources are recorded twice, the second run from the first's checkpoint.
      expect(await recordAsReadmeSays(dir, 'http://127.0.0.1:4010/v1', mock.url)).toEqual([
        'projects.list --state .record-state',
        'projects.list-since --state .record-state',
        'project.get',
        'project_media.import',
        'status.get',
      ]);
    } finally {
      await mock.close();
    }
    expect(await suiteFailures(dir)).toBe('');
    await typechecked;
  }, 120_000);

  it('declares for projects.list and jobs.list the paginator and incremental reading the Descript connector declares by hand', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'plugboard-new-openapi-'));
    const created = bufferIo();
    const argv = ['new', 'descript-paged', '--from-openapi', DESCRIPT_OPENAPI, '--operations', 'listProjects,listJobs'];
    expect(await runCli(argv, { ...created.io, cwd }), created.stderr()).toBe(0);
    const dir = join(cwd, 'descript-paged');
    // Both lists page alike: their paginator is declared once, in src/listing.ts, as the connector does.
    expect(await readFile(join(dir, 'src', 'listing.ts'), 'utf8')).toContain(
      'export const byCursor = cursorPaginator(',
    );
    for (const file of ['projects.list', 'jobs.list'])
      expect(await readFile(join(dir, 'src', 'actions', `${file}.ts`), 'utf8')).toContain('paginator: byCursor,');
    await linkDependencies(dir);
    await tsc(dir, '-p', 'tsconfig.build.json');
    // Loading the connector runs defineConnector's checks of every declaration.
    await import(pathToFileURL(join(dir, 'dist', 'index.js')).href);

    for (const [file, generated, byHand] of [
      ['projects.list', 'projectsList', projectsList],
      ['jobs.list', 'jobsList', jobsList],
    ] as const) {
      const action = (
        (await import(pathToFileURL(join(dir, 'dist', 'actions', `${file}.js`)).href)) as Record<string, Action>
      )[generated]!;
      expect(action.direction === 'source' && action.paginator).toBeTruthy();
      if (action.direction !== 'source' || byHand.direction !== 'source') continue;
      expect(pagingOf(action.paginator!), file).toEqual(pagingOf(byHand.paginator!));
      const { cursorField, tieBreaker, newerThan, order } = action.incremental!;
      expect({ cursorField, tieBreaker, newerThan, order }, file).toEqual({
        cursorField: byHand.incremental!.cursorField,
        tieBreaker: byHand.incremental!.tieBreaker,
        newerThan: byHand.incremental!.newerThan,
        order: byHand.incremental!.order,
      });
    }
  }, 60_000);

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
