import { afterEach, describe, expect, it } from 'vitest';
import {
  CancelledError,
  cursorPaginator,
  nextUrlPaginator,
  PagingLoopError,
  readAll,
  runAction,
  SchemaMismatchError,
} from '../src/index.js';
import { manualClock } from '../src/clock.js';
import { createHostTransport } from '../src/host.js';
import { useHarness } from './support/harness.js';
import { items, pagedConnector } from './support/paged.js';
import { json, startServer, type TestServer } from './support/server.js';

const h = useHarness();
let other: TestServer | undefined;
afterEach(async () => {
  await other?.close();
  other = undefined;
});

const all = items(10);
const byCursor = (options: { maxPages?: number; maxRecords?: number; maxMs?: number } = {}) =>
  cursorPaginator({ records: 'data', cursor: { from: 'next', to: { query: 'cursor' } }, ...options });

/** A server answering two records a page, the cursor of the next page given by `nextOf(cursor of this page)`. */
const serve = (nextOf: (cursor: string) => string | undefined, recordsOf = (cursor: string) => Number(cursor) * 2) =>
  h.start((req, res) => {
    const cursor = req.query.get('cursor') ?? '0';
    json(res, 200, { data: all.slice(recordsOf(cursor), recordsOf(cursor) + 2), next: nextOf(cursor) });
  });

const run = (paginator = byCursor(), options: Partial<Parameters<typeof h.options>[0]> = {}) =>
  readAll(
    pagedConnector(paginator),
    'items.list',
    h.options({ input: {}, connection: { baseUrl: h.server.url }, ...options }),
  );

describe('the loop guard of ctx.http.paginate', () => {
  it('stops a cursor seen before anywhere in the run (A, B, A), naming the action and the page', async () => {
    // 0 -> A -> B -> A: the fourth page would ask for A again.
    await serve(
      (cursor) => ({ '0': 'A', A: 'B', B: 'A' })[cursor],
      (cursor) => ({ '0': 0, A: 2, B: 4 })[cursor]!,
    );
    const failure = await run().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PagingLoopError);
    expect(failure).toMatchObject({ page: 4, code: 'paging_loop' });
    expect((failure as Error).message).toContain('paged items.list: page 4 asks for a page already read');
    expect(h.server.requests.map((request) => request.query.get('cursor'))).toEqual([null, 'A', 'B']);
  });

  it('stops two pages in a row with the same records', async () => {
    await serve(
      (cursor) => String(Number(cursor) + 1),
      (cursor) => (cursor === '0' ? 0 : 2),
    );
    const failure = await run().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PagingLoopError);
    expect(failure).toMatchObject({ page: 3 });
    expect((failure as Error).message).toContain('page 3 holds the same records as the page before it');
  });

  it('stops at maxPages and at maxRecords, with a warning, never past them', async () => {
    await serve((cursor) => (Number(cursor) < 4 ? String(Number(cursor) + 1) : undefined));
    expect((await run(byCursor({ maxPages: 2 }))).records).toHaveLength(4);
    expect(h.server.requests).toHaveLength(2);
    const { records } = await run(byCursor({ maxRecords: 3 }));
    expect(records.map((record) => (record as { id: string }).id)).toEqual(['i1', 'i2', 'i3']);
    expect(h.server.requests).toHaveLength(4);
    expect(h.logs.map((entry) => entry.message)).toEqual([
      'paged items.list: stopped paging at maxPages (2) before page 3; more pages may follow',
      'paged items.list: stopped paging at maxRecords (3) on page 2',
    ]);
  });

  it('says why paging ended in the `pagingEnded` field of a log entry: the last page, or the limit that stopped it', async () => {
    await serve((cursor) => (Number(cursor) < 4 ? String(Number(cursor) + 1) : undefined));
    const endOf = async (paginator: ReturnType<typeof byCursor>) => {
      h.logs.length = 0;
      await run(paginator, { logLevel: 'debug' });
      return h.logs
        .filter((entry) => 'pagingEnded' in entry)
        .map(({ level, pagingEnded, page, action }) => ({ level, pagingEnded, page, action }));
    };
    expect(await endOf(byCursor())).toEqual([
      { level: 'debug', pagingEnded: 'last-page', page: 5, action: 'items.list' },
    ]);
    // A limit reached exactly on the last page is not what ended the read.
    expect(await endOf(byCursor({ maxRecords: 10, maxPages: 5 }))).toEqual([
      { level: 'debug', pagingEnded: 'last-page', page: 5, action: 'items.list' },
    ]);
    expect(await endOf(byCursor({ maxPages: 2 }))).toEqual([
      { level: 'warn', pagingEnded: 'maxPages', page: 3, action: 'items.list' },
    ]);
    expect(await endOf(byCursor({ maxRecords: 3 }))).toEqual([
      { level: 'warn', pagingEnded: 'maxRecords', page: 2, action: 'items.list' },
    ]);
  });

  it("stops at maxMs on the transport's clock", async () => {
    const clock = manualClock();
    const transport = createHostTransport({ clock });
    try {
      await h.start(async (req, res) => {
        await clock.advance(1_000);
        const cursor = Number(req.query.get('cursor') ?? 0);
        json(res, 200, { data: all.slice(cursor * 2, cursor * 2 + 2), next: String(cursor + 1) });
      });
      const { records } = await run(byCursor({ maxMs: 2_500 }), { transport });
      expect(records).toHaveLength(6);
      expect(h.server.requests).toHaveLength(3);
      expect(h.logs.map(({ pagingEnded, page }) => ({ pagingEnded, page }))).toEqual([
        { pagingEnded: 'maxMs', page: 4 },
      ]);
    } finally {
      await transport.close();
    }
  });

  it("stops at the run's signal, sending nothing more", async () => {
    await serve((cursor) => String(Number(cursor) + 1));
    const controller = new AbortController();
    const pages = runAction(
      pagedConnector(byCursor()),
      'items.list',
      h.options({ input: {}, connection: { baseUrl: h.server.url }, signal: controller.signal }),
    );
    await pages.next();
    controller.abort();
    await expect(pages.next()).rejects.toBeInstanceOf(CancelledError);
    expect(h.server.requests).toHaveLength(1);
  });

  it('follows a next URL to another origin without the credential', async () => {
    other = await startServer((req, res) => json(res, 200, { data: all.slice(2, 4), next: null }));
    const elsewhere = `${other.url.replace('127.0.0.1', 'localhost')}/more`;
    await h.start((req, res) => json(res, 200, { data: all.slice(0, 2), next: elsewhere }));
    const { records } = await run(nextUrlPaginator({ records: 'data', next: 'next' }));
    expect(records).toHaveLength(4);
    expect(h.server.requests[0]!.headers.authorization).toBe('Bearer test-credential-1234');
    expect(other.requests).toHaveLength(1);
    expect(other.requests[0]!.headers.authorization).toBeUndefined();
    expect(JSON.stringify(other.requests[0]!.headers)).not.toContain('test-credential-1234');
  });

  it('refuses a next URL that is not http(s), sending nothing more', async () => {
    await h.start((req, res) => json(res, 200, { data: all.slice(0, 2), next: 'file:///etc/passwd' }));
    const failure = await run(nextUrlPaginator({ records: 'data', next: 'next' })).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SchemaMismatchError);
    expect((failure as Error).message).toContain('not an http(s) URL: file:///etc/passwd');
    expect(h.server.requests).toHaveLength(1);
  });

  it('reports a page without the declared records path as a SchemaMismatchError with the path and the request id', async () => {
    await h.start((req, res) => json(res, 200, { items: [] }, { 'x-request-id': 'req-42' }));
    const failure = await run().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SchemaMismatchError);
    expect(failure).toMatchObject({
      requestId: 'req-42',
      issues: [{ path: 'data', message: 'page 1 has no list of records here' }],
    });
  });
});
