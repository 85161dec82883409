import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import {
  entityNames,
  linkDependencies,
  recordAsReadmeSays,
  scaffoldFromOpenApi,
  startMock,
  suiteFailures,
  tsc,
} from './scaffold-support.js';

/**
 * A provider's published document whose operations have ids naming their resource before a
 * slash, and whose lists page by `page`/`per_page` with the next page in a `Link` header:
 * GitHub's REST description (test/documents/github-openapi.yaml, three of its operations, MIT
 * licensed; the file says where it comes from). The scaffold keys its actions by those ids,
 * names its data types from the document's components, declares the Link paginator on each list,
 * builds, records against plugboard mock as its README says, and passes its own standard suite:
 * GitHub's repositories hold `security_and_analysis.secret_scanning.status` (an enum) and
 * date-times, which must reach the fixtures as they are.
 */

const GITHUB_OPENAPI = join(import.meta.dirname, 'documents', 'github-openapi.yaml');

it("scaffolds from GitHub's document, operations named by their slash ids: lists follow the Link header, it builds, records and passes the standard suite", async () => {
  const operations = ['repos/list-for-org', 'issues/list-for-repo', 'repos/get'];
  const dir = await scaffoldFromOpenApi('github', GITHUB_OPENAPI, operations);
  expect((await readdir(join(dir, 'src', 'actions'))).sort()).toEqual([
    'issues.list_for_repo.ts',
    'repos.get.ts',
    'repos.list_for_org.ts',
  ]);
  expect(await entityNames(dir)).toEqual(['MinimalRepository', 'Issue', 'FullRepository']);

  // Both lists answer a bare array and say where the next page is in a Link header: every page is read.
  for (const list of ['repos.list_for_org.ts', 'issues.list_for_repo.ts']) {
    const action = await readFile(join(dir, 'src', 'actions', list), 'utf8');
    expect(action).toContain('paginator: byLinkHeader,');
    expect(action).toContain('return ctx.pages<');
  }
  expect(await readFile(join(dir, 'src', 'listing.ts'), 'utf8')).toMatch(/byLinkHeader = linkHeaderPaginator\(/);
  // Issues have a `since` filter on updated_at: the list is read incrementally, oldest first as the document allows.
  const issues = await readFile(join(dir, 'src', 'actions', 'issues.list_for_repo.ts'), 'utf8');
  expect(issues).toContain("cursorField: 'updated_at',");
  expect(issues).toContain("newerThan: { query: 'since', format: 'iso', earlierMs: 1 },");
  expect(issues).toMatch(/sort: 'updated',\s+direction: 'asc',/);

  await linkDependencies(dir);
  await tsc(dir, '-p', 'tsconfig.build.json');
  // 45 records at the document's 30 a page: each list reads two pages, and the fixtures stay small.
  const { url, stop } = await startMock(dir, ['openapi.yaml', '--records', '45', '--grow', '3']);
  try {
    expect(await recordAsReadmeSays(dir, 'http://127.0.0.1:4010', url)).toEqual([
      'repos.list_for_org',
      'issues.list_for_repo --state .record-state',
      'issues.list_for_repo-since --state .record-state',
      'repos.get',
    ]);
  } finally {
    await stop();
  }
  // An enum under a secret-like name above it, and dates, reach the fixture as the stand-in answered.
  const fixture = JSON.parse(await readFile(join(dir, 'test', 'fixtures', 'repos.get.json'), 'utf8'));
  const repository = fixture.calls[0].response.body;
  expect(repository.security_and_analysis.secret_scanning).toEqual({ status: 'enabled' });
  expect(repository.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  expect(await suiteFailures(dir)).toBe('');
}, 120_000);
