import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAction, defineConnector } from '@plugboard/sdk';
import { REDACTED } from '@plugboard/sdk/host';
import { z } from 'zod';
import {
  type Fixture,
  nextPageMarker,
  pagingProblems,
  readFixtureSync,
  recordScenario,
  replayScenario,
} from '../src/index.js';
import { scenariosIn } from '../src/fixture.js';
import { accountGet, invoicesCreate, sample, Task } from './sample/connector.js';
import { startSampleProvider } from './sample/provider.js';
import { FIXTURES_DIR, tasksFull } from './sample/scenarios.js';

/** Sources page to the end: a successful source run whose last recorded answer offers another page stopped early. */

const json = (body: unknown, headers?: Record<string, string>) => ({
  status: 200,
  body,
  bodyType: 'json' as const,
  ...(headers ? { headers } : {}),
});

describe('next-page detection', () => {
  it.each([
    [{ data: [], next_cursor: 'c2' }, 'next_cursor'],
    [{ data: [], nextCursor: 'c2' }, 'nextCursor'],
    [{ data: [], next: 'https://api.test/items?page=2' }, 'next'],
    [{ data: [], next_page: 2 }, 'next_page'],
    [{ data: [], nextPage: 2 }, 'nextPage'],
    [{ data: [], next_page_token: 'tok' }, 'next_page_token'],
    [{ data: [], nextPageToken: 'tok' }, 'nextPageToken'],
    [{ data: [], cursor: { next: 'c2' } }, 'cursor.next'],
    [{ data: [], links: { self: '/items', next: '/items?page=2' } }, 'links.next'],
    [{ data: [], _links: { next: { href: '/items?page=2' } } }, '_links.next'],
    [{ data: [], pagination: { next_cursor: 'c2' } }, 'pagination.next_cursor'],
    [{ data: [], paging: { next: '/items?after=x' } }, 'paging.next'],
    [{ data: [], has_more: true }, 'has_more: true'],
    [{ data: [], meta: { hasMore: true } }, 'meta.hasMore: true'],
  ])('finds %j', (body, marker) => {
    expect(nextPageMarker(json(body))).toBe(marker);
  });

  it.each([
    { data: [], next_cursor: null },
    { data: [], next: '' },
    { data: [], pagination: {} },
    { data: [], paging: { next: null }, links: { self: '/items' } },
    { data: [], has_more: false, hasMore: 'yes', next_cursor: null },
    { data: [{ id: 1, next: 'inside a record, two levels down' }] },
    { page: { of: { next: 'three levels down' } } },
  ])('finds no next page in %j', (body) => {
    expect(nextPageMarker(json(body))).toBeUndefined();
  });

  it('reads a Link header with rel="next", and ignores one without', () => {
    const link = '<https://api.test/items?page=1>; rel="prev", <https://api.test/items?page=3>; rel="next"';
    expect(nextPageMarker(json({ data: [] }, { link }))).toBe('Link rel="next"');
    expect(nextPageMarker(json([], { Link: '<https://api.test/items?page=3>; type="x"; rel=next' }))).toBe(
      'Link rel="next"',
    );
    expect(nextPageMarker(json([], { link: '<https://api.test/items?page=1>; rel="prev first"' }))).toBeUndefined();
    expect(nextPageMarker({ status: 200, body: 'next_cursor: c2', bodyType: 'text' })).toBeUndefined();
  });
});

describe('a source that stops after the first page', () => {
  const firstPageOnly = defineAction({
    key: 'tasks.list',
    label: 'List tasks',
    direction: 'source',
    entity: Task,
    input: z.object({ limit: z.number().default(2) }),
    async *read(ctx, input) {
      const page = await ctx.http.get<{ data: z.input<typeof Task>[] }>('/tasks', { query: { limit: input.limit } });
      yield { records: page.data };
    },
  });
  const stopsEarly = defineConnector({ ...sample, actions: [firstPageOnly, accountGet, invoicesCreate] });
  const scenario = { ...tasksFull, name: 'tasks-first-page' };
  let dir: string;
  let fixture: Fixture;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plugboard-paging-'));
    const token = 'paging-token-0123456789';
    const provider = await startSampleProvider({ token });
    try {
      fixture = (
        await recordScenario({
          connector: stopsEarly,
          scenario,
          fixturesDir: dir,
          baseUrl: provider.baseUrl,
          credential: token,
        })
      ).fixture;
    } finally {
      await provider.close();
    }
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('replays strictly, so only the paging check catches it, naming the scenario and the marker', async () => {
    expect((await replayScenario({ connector: stopsEarly, scenario, fixturesDir: dir })).records).toHaveLength(2);
    expect(pagingProblems(fixture)).toEqual([
      `scenario 'tasks-first-page' (tasks.list): the last recorded answer (to GET /v1/tasks?limit=2) still offers another page (paging.next); ` +
        'the source stopped before the end: follow every page, then re-record',
    ]);
    expect(JSON.stringify(fixture.calls[0]!.response.body)).toContain(`access_token=${REDACTED}`);
  });

  it("follows the connector's nextPage option instead of the detection", () => {
    expect(pagingProblems(fixture, () => false)).toEqual([]);
    const seen: unknown[] = [];
    const problems = pagingProblems(fixture, (response) => {
      seen.push(response);
      return true;
    });
    expect(seen).toEqual([fixture.calls[0]!.response]);
    expect(problems[0]).toContain("still offers another page (the suite's nextPage option)");
  });
});

describe('the committed sample fixtures', () => {
  it('end on an answer that offers no further page', () => {
    const fixtures = scenariosIn(FIXTURES_DIR).map((scenario) =>
      readFixtureSync(join(FIXTURES_DIR, `${scenario.name}.json`)),
    );
    expect(fixtures).toHaveLength(5);
    expect(fixtures.flatMap((fixture) => pagingProblems(fixture))).toEqual([]);
  });
});
