import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  bearerToken,
  cursorPaginator,
  defineAction,
  defineConnector,
  offsetPaginator,
  type Page,
  pageNumberPaginator,
  type Paginator,
  type SourceContext,
} from '@plugboard/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  defineScenario,
  FIXTURE_FORMAT,
  type Fixture,
  fixturePath,
  incrementalProblems,
  pagingEndProblems,
  pagingLoopProblems,
  type RecordedCall,
  replayScenario,
  type Scenario,
} from '../src/index.js';

/**
 * The paging checks of the standard suite, on a source that declares its paginator and watermark:
 * each passes for the connector that pages as declared, and each catches one built to fail it.
 * The fixtures are written here, page by page, as a provider listing `items` two a page answers.
 */

const Item = z.object({ id: z.string(), updated_at: z.string() }).meta({ id: 'PagedItem' });
const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
const item = (id: string, second: number) => ({ id, updated_at: at(second) });
const newerThan = { query: 'updated_after', format: 'iso', earlierMs: 1 } as const;
const byCursor = (limits: { maxPages?: number } = {}) =>
  cursorPaginator({ records: 'data', cursor: { from: 'next', to: { query: 'cursor' } }, ...limits });

type Checkpoint = { updated_after: string; seen_ids: string[] };
type Read = (ctx: SourceContext<Checkpoint>) => AsyncIterable<Page<z.input<typeof Item>, Checkpoint>>;

/** `items.list` as declared: the pages of `/items` through the watermark, unless `read` says otherwise. */
function connectorWith(paginator: Paginator, read?: Read) {
  return defineConnector({
    key: 'pages',
    name: 'Pages',
    version: '1.0.0',
    vendor: null,
    category: 'developer',
    status: 'beta',
    summary: 'A paged incremental source for the paging checks.',
    auth: bearerToken(),
    actions: [
      defineAction({
        key: 'items.list',
        label: 'List items',
        direction: 'source',
        entity: Item,
        input: z.object({}),
        incremental: {
          cursorField: 'updated_at',
          checkpoint: z.object({ updated_after: z.string(), seen_ids: z.array(z.string()) }),
          newerThan,
          order: 'oldest-first',
        },
        paginator,
        read:
          read ??
          async function* (ctx) {
            yield* ctx.pages<z.input<typeof Item>>({ path: '/items', query: { limit: 2 } });
          },
      }),
    ],
  });
}

const call = (path: string, body: unknown): RecordedCall => ({
  request: { method: 'GET', path: `/v1/items?${path}` },
  response: { status: 200, body, bodyType: 'json', headers: { 'content-type': 'application/json' } },
});

const scenario = (name: string, checkpoint?: unknown): Scenario =>
  defineScenario({ name, action: 'items.list', input: {}, ...(checkpoint ? { checkpoint } : {}) });

const first = scenario('items-first');
const firstCheckpoint = { updated_after: at(4), seen_ids: ['i5'] };
const since = scenario('items-since', firstCheckpoint);
const sinceUnbounded = scenario('items-since-unbounded', firstCheckpoint);
const stoppedEarly = scenario('items-two-pages');
const byOffset = scenario('items-by-offset');
const byNumber = scenario('items-by-number');

const twoPages = [
  call('limit=2', { data: [item('i1', 1), item('i2', 2)], next: 'c2' }),
  call('limit=2&cursor=c2', { data: [item('i3', 3), item('i4', 3)], next: 'c3' }),
];

const FIXTURES: Record<string, RecordedCall[]> = {
  'items-first': [...twoPages, call('limit=2&cursor=c3', { data: [item('i5', 4)], next: null })],
  // The provider lists from just before the checkpoint: i5, read already, comes again.
  'items-since': [
    call('limit=2&updated_after=2026-01-01T00%3A00%3A03.999Z', { data: [item('i5', 4), item('i6', 5)], next: null }),
  ],
  'items-since-unbounded': [call('limit=2', { data: [item('i5', 4), item('i6', 5)], next: null })],
  'items-two-pages': twoPages,
  'items-by-offset': [
    call('limit=2&offset=0', { data: [item('i1', 1), item('i2', 2)] }),
    call('limit=2&offset=2', { data: [item('i3', 3), item('i4', 3)] }),
    call('limit=2&offset=4', { data: [] }),
  ],
  // The provider answers 404 for a page past the last one.
  'items-by-number': [
    call('page=1', { data: [item('i1', 1), item('i2', 2)] }),
    call('page=2', { data: [item('i3', 3)] }),
    {
      request: { method: 'GET', path: '/v1/items?page=3' },
      response: {
        status: 404,
        body: { error: 'not_found' },
        bodyType: 'json',
        headers: { 'content-type': 'application/json' },
      },
    },
  ],
};

const SCENARIOS = [first, since, sinceUnbounded, stoppedEarly, byOffset, byNumber];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plugboard-paging-checks-'));
  for (const each of SCENARIOS) {
    const fixture: Fixture = {
      format: FIXTURE_FORMAT,
      connector: { key: 'pages', version: '1.0.0' },
      scenario: each,
      basePath: '/v1',
      calls: FIXTURES[each.name]!,
      outcome: { pages: 0, records: [] },
    };
    await writeFile(fixturePath(dir, each.name), JSON.stringify(fixture));
  }
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const declared = connectorWith(byCursor());
const endProblems = async (connector: ReturnType<typeof connectorWith>, of: Scenario) =>
  pagingEndProblems(await replayScenario({ connector, scenario: of, fixturesDir: dir }));

describe('a recorded read ends at the paginator’s stop condition', () => {
  it('passes for a read that follows the cursor until none comes', async () => {
    expect(await endProblems(declared, first)).toEqual([]);
  });

  it('catches a read that stopped at maxPages, with every recorded page read', async () => {
    expect(await endProblems(connectorWith(byCursor({ maxPages: 2 })), stoppedEarly)).toEqual([
      "scenario 'items-two-pages' (items.list): paging stopped at maxPages before page 3, not at the paginator's stop condition, so the read left part of the list unread; raise the limit, or record a list that fits in it",
    ]);
  });

  it('catches an action that leaves the pages unread after the first ones', async () => {
    const impatient = connectorWith(byCursor(), async function* (ctx) {
      let pages = 0;
      for await (const page of ctx.pages<z.input<typeof Item>>({ path: '/items', query: { limit: 2 } })) {
        yield page;
        pages += 1;
        if (pages === 2) return;
      }
    });
    expect(await endProblems(impatient, stoppedEarly)).toEqual([
      "scenario 'items-two-pages' (items.list): no paged read came to its paginator's last page; the action stopped reading pages (or read them without ctx.pages) before the stop condition fired",
    ]);
  });
});

/** `items.list` paged by number, its read ended by a 404 past the last page. */
const numbered = connectorWith(
  pageNumberPaginator({ records: 'data', page: { param: 'page' }, stop: [{ status: [404] }] }),
  async function* (ctx) {
    yield* ctx.pages<z.input<typeof Item>>({ path: '/items' });
  },
);

describe('a recorded read ended by a status past the last page', () => {
  it('replays to the end, and ends at the stop condition', async () => {
    const result = await replayScenario({ connector: numbered, scenario: byNumber, fixturesDir: dir });
    expect(result.error).toBeUndefined();
    expect(result.records.map((record) => (record as { id: string }).id)).toEqual(['i1', 'i2', 'i3']);
    expect(result.pagingEnds).toEqual([{ ended: 'last-page', page: 3 }]);
    expect(pagingEndProblems(result)).toEqual([]);
  });

  it('made to loop, is stopped by the guard, the answer past the end left unasked', async () => {
    expect(await pagingLoopProblems(numbered, byNumber, { fixturesDir: dir })).toEqual([]);
  });
});

describe('the loop guard stops a recorded read made to loop', () => {
  it('a cursor paginator: the last page answers with the cursor of the page before, stopped at the page after it', async () => {
    expect(await pagingLoopProblems(declared, first, { fixturesDir: dir })).toEqual([]);
  });

  it('an offset paginator: the last page answers as the page before did, stopped at it', async () => {
    const offset = offsetPaginator({
      records: 'data',
      offset: { param: 'offset' },
      pageSize: { param: 'limit', value: 2 },
    });
    const connector = connectorWith(offset, async function* (ctx) {
      yield* ctx.pages<z.input<typeof Item>>({ path: '/items' });
    });
    expect(await pagingLoopProblems(connector, byOffset, { fixturesDir: dir })).toEqual([]);
  });

  it('catches a source that declares a paginator but pages by hand, without the guard', async () => {
    const byHand = connectorWith(byCursor(), async function* (ctx) {
      let cursor: string | undefined;
      do {
        const page = await ctx.http.get<{ data: z.input<typeof Item>[]; next: string | null }>('/items', {
          query: { limit: 2, cursor },
        });
        yield { records: page.data };
        cursor = page.next ?? undefined;
      } while (cursor);
    });
    const problems = await pagingLoopProblems(byHand, first, { fixturesDir: dir });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(
      "scenario 'items-first' (items.list): where page 3 answers with page 2's cursor, expected a PagingLoopError (paging_loop) naming 'pages items.list' and page 4; instead:",
    );
    expect(problems[0]).toContain('GET /v1/items?limit=2&cursor=c3 (no body)');
  });
});

describe('a second run resumes from the checkpoint', () => {
  it('passes for the declared watermark: the bound from the checkpoint, the record read at its instant dropped', async () => {
    expect(await incrementalProblems(declared, first, since, { fixturesDir: dir })).toEqual([]);
  });

  it('catches a source that sends no bound and delivers the record it read at the checkpoint again', async () => {
    const forgetful = connectorWith(byCursor(), async function* (ctx) {
      let last: z.input<typeof Item> | undefined;
      for await (const page of ctx.http.paginate<z.input<typeof Item>>(
        { path: '/items', query: { limit: 2 } },
        byCursor(),
      )) {
        last = page.records.at(-1) ?? last;
        yield {
          records: page.records,
          ...(last ? { checkpoint: { updated_after: last.updated_at, seen_ids: [last.id] } } : {}),
        };
      }
    });
    const problems = await incrementalProblems(forgetful, first, sinceUnbounded, { fixturesDir: dir });
    expect(problems).toEqual([
      'the second run read 1 record(s) the first run had read already: "i5"',
      `the second run's first request (GET /v1/items?limit=2) does not carry updated_after, the newer-than bound from the checkpoint's "${at(4)}"`,
      `the second run delivered 1 record(s) its checkpoint holds as read (older than "${at(4)}", or at it with an id in seen_ids): "i5"`,
    ]);
  });
});
