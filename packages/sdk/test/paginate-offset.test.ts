import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bearerToken, defineAction, defineConnector, offsetPaginator, PagingLoopError, readAll } from '../src/index.js';
import type { StopWhen } from '../src/paginate/paged-options.js';
import { useHarness } from './support/harness.js';
import { items, readPaged } from './support/paged.js';
import { json } from './support/server.js';

/**
 * Offset paging against a list that changes while it is read. Records deleted before the reader
 * shift the rest back: the next offset would pass over as many survivors. Where the answer
 * declares its total, the read sees the list shrink and steps back by as much, dropping the
 * records it delivered already by their key.
 */

const h = useHarness();

const byOffset = (stop: StopWhen[] = [{ total: 'meta.total' }], size = 5) =>
  offsetPaginator({ records: 'data', offset: { param: 'offset' }, pageSize: { param: 'limit', value: size }, stop });

/**
 * A provider listing `list` by offset and limit with its current total; `after(page)` runs once
 * that page is served (page 1 is the first request), and may change the list.
 */
function serveList(list: readonly unknown[], after: (page: number) => void = () => {}, total = () => list.length) {
  let served = 0;
  return h.start((req, res) => {
    const offset = Number(req.query.get('offset'));
    const limit = Number(req.query.get('limit'));
    json(res, 200, { data: list.slice(offset, offset + limit), meta: { total: total() } });
    served += 1;
    after(served);
  });
}

/** Removes the records with these ids from the list, in place. */
function remove(list: { id: string }[], gone: string[]): void {
  for (const id of gone)
    list.splice(
      list.findIndex((record) => record.id === id),
      1,
    );
}

/** How many times each id was delivered, for those delivered other than once. */
function repeats(delivered: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const id of delivered) counts[id] = (counts[id] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).filter(([, count]) => count !== 1));
}

describe('records deleted mid-read, with a declared total', () => {
  it('deleted before the reader after page 2: every survivor is delivered, and none twice', async () => {
    const list = items(20);
    const gone = ['i2', 'i3', 'i6', 'i8', 'i9'];
    await serveList(list, (page) => page === 2 && remove(list, gone));
    const { ids } = await readPaged(h, byOffset());
    const survivors = items(20)
      .map((item) => item.id)
      .filter((id) => !gone.includes(id));
    expect(survivors.filter((id) => !ids.includes(id))).toEqual([]);
    expect(repeats(ids)).toEqual({});
    // In the list's order: the page that showed the shrink was set aside and read again.
    expect(ids).toEqual(items(20).map((item) => item.id));
  });

  it('deleted after the reader: the step back reads delivered records again and drops them', async () => {
    const list = items(20);
    const gone = ['i12', 'i14', 'i16', 'i18', 'i20'];
    await serveList(list, (page) => page === 2 && remove(list, gone));
    const { ids } = await readPaged(h, byOffset());
    expect(ids).toEqual(
      items(20)
        .map((item) => item.id)
        .filter((id) => !gone.includes(id)),
    );
  });

  it('the last page emptied by the deletions is not the end: the survivors shifted before it are read', async () => {
    const list = items(20);
    const gone = ['i1', 'i2', 'i3', 'i4', 'i5'];
    // Page 4 (offset 15) comes after the deletion and finds nothing left there.
    await serveList(list, (page) => page === 3 && remove(list, gone));
    const { ids } = await readPaged(h, byOffset([{ total: 'meta.total' }, 'empty-page']));
    expect(ids).toEqual(items(20).map((item) => item.id));
  });
});

describe("an incremental source's tie-breaker", () => {
  const Keyed = z.object({ key: z.string(), name: z.string(), updated_at: z.string() }).meta({ id: 'KeyedItem' });
  const keyedSource = defineConnector({
    key: 'keyed',
    name: 'Keyed',
    version: '1.0.0',
    vendor: null,
    category: 'developer',
    status: 'beta',
    summary: 'An incremental source keyed by `key`, paged by offset.',
    auth: bearerToken(),
    actions: [
      defineAction({
        key: 'items.list',
        label: 'List items',
        direction: 'source',
        entity: Keyed,
        input: z.object({}),
        incremental: { cursorField: 'updated_at', tieBreaker: 'key' },
        paginator: byOffset(),
        read: (ctx) => ctx.pages({ path: '/items' }),
      }),
    ],
  });

  it('is the key records read again are dropped by, when the paginator names none', async () => {
    const list = items(20).map(({ id, updated_at }) => ({ key: id, name: `Item ${id}`, updated_at }));
    // After page 2, five records after the reader go and those before it are renamed: only the key tells them apart.
    await serveList(list, (page) => {
      if (page !== 2) return;
      list.splice(10, 5);
      for (const record of list.slice(0, 10)) record.name = `${record.name} (renamed)`;
    });
    const { records } = await readAll(
      keyedSource,
      'items.list',
      h.options({ input: {}, connection: { baseUrl: h.server.url } }),
    );
    const keys = records.map((record) => (record as { key: string }).key);
    expect(repeats(keys)).toEqual({});
    expect(keys).toEqual([...items(10), ...items(20).slice(15)].map((item) => item.id));
  });
});

describe('an offset paginator meeting an empty page', () => {
  it('ends there as at its last page, even when the declared total says more', async () => {
    // The provider counts 12 but lists 8: offset 8 is empty, and asking it again would loop.
    const list = items(8);
    await serveList(
      list,
      () => {},
      () => 12,
    );
    const { ids } = await readPaged(h, byOffset([{ total: 'meta.total' }]), undefined, { logLevel: 'debug' });
    expect(ids).toEqual(list.map((item) => item.id));
    expect(h.server.requests.map((request) => request.query.get('offset'))).toEqual(['0', '5', '8']);
    expect(
      h.logs.filter((entry) => 'pagingEnded' in entry).map(({ pagingEnded, page }) => ({ pagingEnded, page })),
    ).toEqual([{ pagingEnded: 'last-page', page: 3 }]);
  });
});

describe('a total that goes down and up again for ever', () => {
  it('is stopped once the steps back add up to more than the list held, as a PagingLoopError', async () => {
    const list = items(20);
    let served = 0;
    await serveList(
      list,
      () => {},
      () => (served++ % 2 === 0 ? 20 : 15),
    );
    const failure = await readPaged(h, byOffset()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PagingLoopError);
    expect((failure as Error).message).toContain(
      'page 10 shows the list 5 records shorter: the steps back would add up to 25 records, more than the 20 it held on page 1',
    );
    expect(h.server.requests.length).toBeLessThan(20);
  });
});

describe('a shrink larger than the keys the read keeps', () => {
  it('fails rather than risk delivering records twice', async () => {
    const list = items(31_500);
    // After 21 pages of 1,000 (past the 10,000 keys kept), 10,100 go: the step back would reach past the keys.
    await serveList(list, (page) => page === 21 && list.splice(0, 10_100));
    const failure = await readPaged(h, byOffset([{ total: 'meta.total' }], 1_000)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PagingLoopError);
    expect((failure as Error).message).toContain(
      'page 22 steps back over 10100 records, more than the 10000 whose keys the read keeps, so some could be delivered twice',
    );
  });
});
