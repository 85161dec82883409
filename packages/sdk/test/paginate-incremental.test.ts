import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import {
  bearerToken,
  cursorPaginator,
  DefinitionError,
  defineAction,
  defineConnector,
  type Incremental,
  pageNumberPaginator,
  type Paginator,
  runAction,
} from '../src/index.js';
import type { PagesStart } from '../src/context.js';
import { useHarness } from './support/harness.js';
import { PagedItem } from './support/paged.js';
import { json } from './support/server.js';

const h = useHarness();
type Item = z.input<typeof PagedItem>;

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
const item = (id: string, second: number): Item => ({ id, updated_at: at(second) });

const byCursor = cursorPaginator({
  records: 'data',
  pageSize: { param: 'limit', value: 2 },
  cursor: { from: 'next', to: { query: 'cursor' } },
});

/** A connector whose `items.list` reads `/items` with `paginator` and the declared watermark. */
function incrementalConnector(
  incremental: Partial<Incremental<unknown>>,
  paginator: Paginator = byCursor,
  start?: PagesStart,
) {
  return defineConnector({
    key: 'paged',
    name: 'Paged',
    version: '1.0.0',
    vendor: null,
    category: 'developer',
    status: 'beta',
    summary: 'An incremental paged source for the SDK tests.',
    auth: bearerToken(),
    actions: [
      defineAction({
        key: 'items.list',
        label: 'List items',
        direction: 'source',
        entity: PagedItem,
        input: z.object({}),
        incremental: { cursorField: 'updated_at', ...incremental },
        paginator,
        async *read(ctx) {
          yield* ctx.pages<Item>({ path: '/items' }, start);
        },
      }),
    ],
  });
}

/**
 * A provider listing `stored` in `order`, two a page by an index cursor; `updated_after`, when
 * honoured, keeps the records at that instant or later (its bound included, so records repeat).
 */
async function provider(stored: Item[], order: 'oldest-first' | 'newest-first', honoursFilter = true) {
  return h.start((req, res) => {
    const after = honoursFilter ? req.query.get('updated_after') : null;
    const listed = stored
      .filter((record) => after === null || record.updated_at >= after)
      .sort((a, b) =>
        a.updated_at === b.updated_at ? a.id.localeCompare(b.id) : a.updated_at < b.updated_at ? -1 : 1,
      );
    if (order === 'newest-first') listed.reverse();
    const from = Number(req.query.get('cursor') ?? 0);
    json(res, 200, {
      data: listed.slice(from, from + 2),
      next: from + 2 < listed.length ? String(from + 2) : undefined,
    });
  });
}

/** Every page of a run: its record ids and its checkpoint. */
async function pagesOf(connector: ReturnType<typeof incrementalConnector>, checkpoint?: unknown) {
  const pages: { ids: string[]; checkpoint?: unknown }[] = [];
  const options = h.options({ input: {}, connection: { baseUrl: h.server.url }, checkpoint });
  for await (const page of runAction(connector, 'items.list', options)) {
    pages.push({
      ids: page.records.map((record) => (record as Item).id),
      ...(page.checkpoint === undefined ? {} : { checkpoint: page.checkpoint }),
    });
  }
  return pages;
}

const newerThan = { query: 'updated_after', format: 'iso', earlierMs: 1 } as const;

describe('watermarks as data (ctx.pages)', () => {
  it('oldest first: a checkpoint on every page, and the records repeated at the boundary dropped on the next run', async () => {
    const stored = [item('i1', 0), item('i2', 1), item('i3', 1), item('i4', 2)];
    const server = await provider(stored, 'oldest-first');
    const connector = incrementalConnector({ newerThan, order: 'oldest-first' });
    const first = await pagesOf(connector);
    expect(first).toEqual([
      { ids: ['i1', 'i2'], checkpoint: { updated_after: at(1), seen_ids: ['i2'] } },
      { ids: ['i3', 'i4'], checkpoint: { updated_after: at(2), seen_ids: ['i4'] } },
    ]);
    // One more at the same instant as the last one read, and one later.
    stored.push(item('i5', 2), item('i6', 3));
    const second = await pagesOf(connector, first.at(-1)!.checkpoint);
    expect(second).toEqual([
      { ids: ['i5'], checkpoint: { updated_after: at(2), seen_ids: ['i4', 'i5'] } },
      { ids: ['i6'], checkpoint: { updated_after: at(3), seen_ids: ['i6'] } },
    ]);
    // Asked from just before the checkpoint: the provider's bound may or may not include it.
    expect(server.requests.slice(2).map((request) => request.query.get('updated_after'))).toEqual([
      '2026-01-01T00:00:01.999Z',
      '2026-01-01T00:00:01.999Z',
    ]);
  });

  it('newest first: the checkpoint held back to the last page, and the next run stops where the last one began', async () => {
    const stored = [item('i1', 0), item('i2', 1), item('i3', 1), item('i4', 2)];
    // A provider that ignores the filter: only the watermark stops the read.
    const server = await provider(stored, 'newest-first', false);
    const connector = incrementalConnector({ newerThan, order: 'newest-first' });
    const first = await pagesOf(connector);
    expect(first).toEqual([
      { ids: ['i4', 'i3'] },
      { ids: ['i2', 'i1'], checkpoint: { updated_after: at(2), seen_ids: ['i4'] } },
    ]);
    stored.push(item('i5', 2), item('i6', 3), item('i7', 3));
    const second = await pagesOf(connector, first.at(-1)!.checkpoint);
    expect(second).toEqual([
      { ids: ['i7', 'i6'] },
      { ids: ['i5'], checkpoint: { updated_after: at(3), seen_ids: ['i6', 'i7'] } },
    ]);
    // Two pages of the second run, not four: it stopped at the first record the last run had read.
    expect(server.requests).toHaveLength(4);
  });

  it('says in the log whether a read ended on the last page or where its checkpoint began', async () => {
    const stored = [item('i1', 0), item('i2', 1), item('i3', 2), item('i4', 3), item('i5', 4), item('i6', 5)];
    await provider(stored, 'newest-first', false);
    const connector = incrementalConnector({ newerThan, order: 'newest-first' });
    const ends = async (checkpoint?: unknown) => {
      h.logs.length = 0;
      const options = h.options({ input: {}, connection: { baseUrl: h.server.url }, checkpoint, logLevel: 'debug' });
      for await (const _page of runAction(connector, 'items.list', options));
      return h.logs.filter((entry) => 'pagingEnded' in entry).map(({ pagingEnded, page }) => ({ pagingEnded, page }));
    };
    expect(await ends()).toEqual([{ pagingEnded: 'last-page', page: 3 }]);
    expect(await ends({ updated_after: at(3), seen_ids: ['i4'] })).toEqual([{ pagingEnded: 'checkpoint', page: 2 }]);
  });

  it("newest first: a read stopped before it reached the last run's records moves no checkpoint", async () => {
    const stored = [item('i1', 0), item('i2', 1), item('i3', 2), item('i4', 3), item('i5', 4)];
    await provider(stored, 'newest-first', false);
    const limited = cursorPaginator({
      records: 'data',
      pageSize: { param: 'limit', value: 2 },
      cursor: { from: 'next', to: { query: 'cursor' } },
      maxPages: 1,
    });
    const pages = await pagesOf(incrementalConnector({ order: 'newest-first' }, limited), {
      updated_at: at(0),
      seen_ids: ['i1'],
    });
    expect(pages).toEqual([{ ids: ['i5', 'i4'] }]);
  });

  it('starts a first run from `from`, and moves a start older than `notBefore` up to it', async () => {
    const stored = [item('i1', 0), item('i2', 1), item('i3', 5), item('i4', 6)];
    const server = await provider(stored, 'oldest-first');
    const first = await pagesOf(incrementalConnector({ newerThan }, byCursor, { from: at(1) }));
    expect(first.flatMap((page) => page.ids)).toEqual(['i2', 'i3', 'i4']);
    const clamped = incrementalConnector({ newerThan }, byCursor, { notBefore: at(5) });
    const second = await pagesOf(clamped, { updated_after: at(0), seen_ids: ['i1'] });
    expect(second.flatMap((page) => page.ids)).toEqual(['i3', 'i4']);
    expect(server.requests.map((request) => request.query.get('updated_after'))).toEqual([
      '2026-01-01T00:00:00.999Z',
      '2026-01-01T00:00:00.999Z',
      '2026-01-01T00:00:04.999Z',
    ]);
  });
});

describe('paging declarations refused at definition', () => {
  const refused = (incremental: Partial<Incremental<unknown>>, paginator?: Paginator) => {
    try {
      incrementalConnector(incremental, paginator);
    } catch (error) {
      expect(error).toBeInstanceOf(DefinitionError);
      return (error as DefinitionError).problems;
    }
    throw new Error('the definition was accepted');
  };

  it('names connector, action and field', () => {
    expect(
      refused(
        {},
        pageNumberPaginator({
          records: 'data',
          page: { param: 'page' },
          pageSize: { param: 'limit', value: 500, max: 100 },
          stop: [],
        }),
      ),
    ).toEqual([
      "connector 'paged': action 'items.list': paginator: pageSize.value 500 is over its cap of 100",
      "connector 'paged': action 'items.list': paginator: no stop condition can fire: give stop one of 'empty-page', 'short-page', { hasMore }, { total }, { status }",
    ]);
    expect(refused({ cursorField: 'changed_at', tieBreaker: 'key' })).toEqual([
      "connector 'paged': action 'items.list': the cursor field 'changed_at' is not a field of the entity",
      "connector 'paged': action 'items.list': incremental.tieBreaker: 'key' is not a field of the entity",
    ]);
    expect(
      refused(
        { newerThan: { query: 'since', earlierMs: 1 } },
        cursorPaginator({ records: 'data..items', cursor: { from: 'next', to: { path: 'cursor' } } }),
      ),
    ).toEqual([
      "connector 'paged': action 'items.list': paginator: a cursor sent in the path needs an initial value",
      "connector 'paged': action 'items.list': paginator: records: 'data..items' has an empty step",
      "connector 'paged': action 'items.list': incremental.newerThan.earlierMs needs a format that is a time ('iso', 'unix' or 'unix-ms'); 'as-is' sends the cursor value as the provider wrote it",
    ]);
  });

  it('a path the paginator reads that its declared answer lacks', () => {
    const answer = z.object({
      items: z.array(PagedItem),
      meta: z.object({ next: z.string().nullable(), count: z.number() }).optional(),
    });
    expect(
      refused(
        {},
        cursorPaginator({
          records: 'meta',
          cursor: { from: 'meta.cursor', to: { query: 'cursor' } },
          stop: [{ hasMore: 'has_more' }],
          answer,
        }),
      ),
    ).toEqual([
      "connector 'paged': action 'items.list': paginator: records: 'meta' is not a list in the declared answer",
      "connector 'paged': action 'items.list': paginator: cursor.from: 'meta.cursor' is not in the declared answer",
      "connector 'paged': action 'items.list': paginator: hasMore: 'has_more' is not in the declared answer",
    ]);
    // The same reads of an answer that has them are accepted.
    expect(() =>
      incrementalConnector(
        {},
        cursorPaginator({ records: 'items', cursor: { from: 'meta.next', to: { query: 'cursor' } }, answer }),
      ),
    ).not.toThrow();
  });
});
