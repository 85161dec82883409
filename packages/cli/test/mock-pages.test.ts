import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  bearerToken,
  createTransport,
  cursorPaginator,
  defineAction,
  defineConnector,
  type HttpRequest,
  type Incremental,
  linkHeaderPaginator,
  nextUrlPaginator,
  offsetPaginator,
  pageNumberPaginator,
  type Paginator,
  readAll,
  type Transport,
} from '@plugboard/sdk';
import { createDescriptConnector } from '@plugboard/connector-descript';
import { manualClock } from '@plugboard/sdk/host';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runCli } from '../src/index.js';
import { type MockServer, type MockServerOptions, startMockServer } from '../src/mock/server.js';
import { loadOpenApiDocument } from '../src/openapi-document.js';
import { bufferIo } from './support.js';

const DESCRIPT = join(import.meta.dirname, '..', '..', '..', '..', 'shared', 'reference', 'descript-openapi-1.2.yaml');

/**
 * `plugboard mock` serves a list operation's pages the way the document describes them, and so
 * the way a connector's declared paginator reads them: each SDK paginator kind reads every
 * record exactly once, in the pages expected, and stops; newer-than filters keep only newer
 * records, and `grow` gives an incremental second run new records to read.
 */

const Item = {
  type: 'object',
  required: ['id', 'name', 'updated_at', 'status'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string', minLength: 1, maxLength: 40, example: 'Quarterly report' },
    status: { type: 'string', enum: ['draft', 'live', 'archived'] },
    size: { type: 'integer', minimum: 1, maximum: 10 },
    updated_at: { type: 'string', format: 'date-time' },
    owner: { type: 'object', required: ['email'], properties: { email: { type: 'string', format: 'email' } } },
  },
};
const ref = { $ref: '#/components/schemas/Item' };
const list = { type: 'array', items: ref };
const query = (name: string, schema: Record<string, unknown>) => ({ name, in: 'query', schema });
const limit = query('limit', { type: 'integer', minimum: 1, maximum: 50 });
const perPage = query('per_page', { type: 'integer', minimum: 1, maximum: 100, default: 30 });
const updatedAfter = query('updated_after', { type: 'string', format: 'date-time' });
const ok = (schema: unknown, headers?: Record<string, unknown>) => ({
  '200': { description: 'A page', content: { 'application/json': { schema } }, ...(headers ? { headers } : {}) },
  '400': {
    description: 'Refused',
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: { code: { type: 'string' }, message: { type: 'string' } },
            },
          },
        },
      },
    },
  },
});

/** One operation per way of paging. */
const PAGED = {
  openapi: '3.1.0',
  info: { title: 'Paged', version: '1.0.0' },
  servers: [{ url: 'https://api.paged.example/v1' }],
  security: [{ bearer: [] }],
  components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } }, schemas: { Item } },
  paths: {
    '/cursor': {
      get: {
        operationId: 'byCursor',
        parameters: [
          limit,
          query('cursor', { type: 'string' }),
          updatedAfter,
          query('updated_before', { type: 'string', format: 'date-time' }),
          query('direction', { type: 'string', enum: ['asc', 'desc'], default: 'asc' }),
        ],
        responses: ok({
          type: 'object',
          required: ['data', 'pagination'],
          properties: { data: list, pagination: { type: 'object', properties: { next_cursor: { type: 'string' } } } },
        }),
      },
    },
    '/header': {
      get: {
        operationId: 'byHeader',
        parameters: [limit, { name: 'X-Page-Token', in: 'header', schema: { type: 'string' } }],
        responses: ok(list, { 'X-Next-Token': { schema: { type: 'string' } } }),
      },
    },
    '/search': {
      post: {
        operationId: 'search',
        parameters: [limit],
        requestBody: {
          content: {
            'application/json': {
              schema: { type: 'object', properties: { q: { type: 'string' }, cursor: { type: 'string' } } },
            },
          },
        },
        responses: ok({ type: 'object', properties: { items: list, next: { type: ['string', 'null'] } } }),
      },
    },
    '/feed/{cursor}': {
      get: {
        operationId: 'byPath',
        parameters: [
          limit,
          { name: 'cursor', in: 'path', required: true, schema: { type: 'string', default: 'start' } },
        ],
        responses: ok({ type: 'object', properties: { data: list, next_cursor: { type: 'string' } } }),
      },
    },
    '/offset': {
      get: {
        operationId: 'byOffset',
        parameters: [query('offset', { type: 'integer', minimum: 0 }), limit, updatedAfter],
        responses: ok({
          type: 'object',
          required: ['results'],
          properties: { results: list, total: { type: 'integer' } },
        }),
      },
    },
    '/numbered': {
      get: {
        operationId: 'byPage',
        parameters: [query('page', { type: 'integer', minimum: 1 }), perPage],
        responses: ok({ type: 'object', properties: { items: list, has_more: { type: 'boolean' } } }),
      },
    },
    '/linked': {
      get: {
        operationId: 'byLink',
        parameters: [query('page', { type: 'integer' }), perPage],
        responses: ok(list, { Link: { schema: { type: 'string' } } }),
      },
    },
    '/both': {
      get: {
        operationId: 'byEither',
        parameters: [limit, query('page_token', { type: 'string' })],
        responses: ok({
          type: 'object',
          required: ['items', 'has_more', 'total_count'],
          properties: {
            items: list,
            has_more: { type: 'boolean' },
            total_count: { type: 'integer' },
            meta: { type: 'object', properties: { next_page_token: { type: 'string' } } },
            links: { type: 'object', properties: { next: { type: 'string', format: 'uri' } } },
          },
        }),
      },
    },
    '/hal': {
      get: {
        operationId: 'byHal',
        parameters: [query('page', { type: 'integer', minimum: 0, default: 0 }), perPage],
        responses: ok({
          type: 'object',
          properties: {
            _embedded: { type: 'object', properties: {} },
            records: list,
            _links: {
              type: 'object',
              properties: { next: { type: 'object', required: ['href'], properties: { href: { type: 'string' } } } },
            },
          },
        }),
      },
    },
    '/changes': {
      get: {
        operationId: 'byUnixTime',
        parameters: [
          query('offset', { type: 'integer', minimum: 0 }),
          limit,
          query('modified_since', { type: 'integer', minimum: 0 }),
        ],
        responses: ok({ type: 'object', properties: { data: list } }),
      },
    },
    '/next': {
      get: {
        operationId: 'byNextUrl',
        parameters: [limit, query('since', { type: 'string', format: 'date-time' })],
        responses: ok({
          type: 'object',
          properties: { data: list, links: { type: 'object', properties: { next: { type: ['string', 'null'] } } } },
        }),
      },
    },
  },
};

interface Record_ {
  id: string;
  updated_at: string;
}

let server: MockServer | undefined;
let transport: Transport;
beforeEach(() => {
  transport = createTransport();
});
afterEach(async () => {
  await transport.close();
  await server?.close();
  server = undefined;
});

/** The clock of the day the mock starts on, in every test: the newest of its records is at 2026-01-08T00:00:00Z. */
const DAY = manualClock(Date.UTC(2026, 0, 8, 12));

async function serve(options: MockServerOptions = {}): Promise<MockServer> {
  const file = join(await mkdtemp(join(tmpdir(), 'plugboard-mock-pages-')), 'paged.json');
  await writeFile(file, JSON.stringify(PAGED));
  server = await startMockServer(await loadOpenApiDocument(file), { records: 103, clock: DAY, ...options });
  return server;
}

/** A connector whose one source reads `request` through `paginator`, incremental when told how. */
function source(paginator: Paginator, request: HttpRequest, incremental?: Incremental<unknown>) {
  return defineConnector({
    key: 'paged',
    name: 'Paged',
    version: '1.0.0',
    vendor: null,
    category: 'developer',
    status: 'beta',
    summary: 'A paged source read against plugboard mock.',
    auth: bearerToken(),
    actions: [
      defineAction({
        key: 'items.list',
        label: 'List items',
        direction: 'source',
        entity: z.looseObject({ id: z.string(), updated_at: z.string() }).meta({ id: 'PagedItem' }),
        input: z.object({}),
        paginator,
        ...(incremental ? { incremental } : {}),
        read: (ctx) => ctx.pages(request),
      }),
    ],
  });
}

async function read(connector: ReturnType<typeof source>, checkpoint?: unknown) {
  const {
    records,
    pages,
    checkpoint: last,
  } = await readAll(connector, 'items.list', {
    input: {},
    connection: { baseUrl: server!.url },
    credential: () => 'mock-token-1234',
    transport,
    log: () => undefined,
    ...(checkpoint === undefined ? {} : { checkpoint }),
  });
  return { records: records as Record_[], pages, checkpoint: last };
}

const validate = (() => {
  const ajv = new Ajv({ strict: false });
  (addFormats as unknown as (ajv: Ajv) => void)(ajv);
  return ajv.compile(Item);
})();

/** Every record valid, each read once, oldest first. */
function expectAllOnce(records: Record_[], count: number) {
  for (const record of records) expect(validate(record), JSON.stringify(validate.errors)).toBe(true);
  expect(new Set(records.map((record) => record.id)).size).toBe(count);
  expect(records).toHaveLength(count);
  const instants = records.map((record) => record.updated_at);
  expect(instants).toEqual([...instants].sort());
}

const statuses = () => server!.requests.map((request) => request.status);

describe('plugboard mock pages as each declared paginator reads', () => {
  it('a cursor from a body path, sent in the query: every record once, pages of the size asked, then no cursor', async () => {
    await serve();
    const paginator = cursorPaginator({
      records: 'data',
      pageSize: { param: 'limit', value: 25, max: 50 },
      cursor: { from: 'pagination.next_cursor', to: { query: 'cursor' } },
    });
    const { records, pages } = await read(source(paginator, { path: '/cursor' }));
    expectAllOnce(records, 103);
    expect(pages).toBe(5);
    expect(statuses()).toEqual([200, 200, 200, 200, 200]);
  });

  it('a cursor from a header, sent as a header', async () => {
    await serve();
    const paginator = cursorPaginator({
      records: '',
      pageSize: { param: 'limit', value: 50 },
      cursor: { from: { header: 'x-next-token' }, to: { header: 'x-page-token' } },
    });
    const { records, pages } = await read(source(paginator, { path: '/header' }));
    expectAllOnce(records, 103);
    expect(pages).toBe(3);
  });

  it('a cursor sent in the JSON body of a POST, and one sent as a path segment from its first value', async () => {
    await serve();
    const body = cursorPaginator({
      records: 'items',
      pageSize: { param: 'limit', value: 40 },
      cursor: { from: 'next', to: { body: 'cursor' } },
    });
    const searched = await read(source(body, { method: 'POST', path: '/search', json: { q: 'all' } }));
    expectAllOnce(searched.records, 103);
    expect(searched.pages).toBe(3);
    const path = cursorPaginator({
      records: 'data',
      pageSize: { param: 'limit', value: 50 },
      cursor: { from: 'next_cursor', to: { path: 'cursor' }, initial: 'start' },
    });
    const fed = await read(source(path, { path: '/feed/{cursor}' }));
    expectAllOnce(fed.records, 103);
    expect(fed.pages).toBe(3);
  });

  it('an offset with a limit, until an empty page or the total', async () => {
    await serve();
    const empty = offsetPaginator({
      records: 'results',
      offset: { param: 'offset' },
      pageSize: { param: 'limit', value: 50 },
      stop: ['empty-page'],
    });
    const untilEmpty = await read(source(empty, { path: '/offset' }));
    expectAllOnce(untilEmpty.records, 103);
    // 50, 50, 3, then the empty page that stops it.
    expect(untilEmpty.pages).toBe(4);
    const total = offsetPaginator({
      records: 'results',
      offset: { param: 'offset' },
      pageSize: { param: 'limit', value: 50 },
      stop: [{ total: 'total' }],
    });
    const untilTotal = await read(source(total, { path: '/offset' }));
    expectAllOnce(untilTotal.records, 103);
    expect(untilTotal.pages).toBe(3);
  });

  it('a page number with has_more, and one stopped by a short page', async () => {
    await serve();
    const hasMore = pageNumberPaginator({
      records: 'items',
      page: { param: 'page' },
      pageSize: { param: 'per_page', value: 30 },
      stop: [{ hasMore: 'has_more' }],
    });
    const byFlag = await read(source(hasMore, { path: '/numbered' }));
    expectAllOnce(byFlag.records, 103);
    expect(byFlag.pages).toBe(4);
    const short = pageNumberPaginator({
      records: 'items',
      page: { param: 'page' },
      pageSize: { param: 'per_page', value: 30 },
      stop: ['short-page'],
    });
    const byShort = await read(source(short, { path: '/numbered' }));
    expect(byShort.records.map((record) => record.id)).toEqual(byFlag.records.map((record) => record.id));
    expect(byShort.pages).toBe(4);
  });

  it('a Link header with rel="next", until none comes', async () => {
    await serve();
    const paginator = linkHeaderPaginator({ records: '', pageSize: { param: 'per_page', value: 100 } });
    const { records, pages } = await read(source(paginator, { path: '/linked' }));
    expectAllOnce(records, 103);
    expect(pages).toBe(2);
    const last = await fetch(`${server!.url}/linked?per_page=100&page=2`, { headers: { authorization: 'Bearer t' } });
    expect(last.headers.get('link')).toBeNull();
    const first = await fetch(`${server!.url}/linked?per_page=100`, { headers: { authorization: 'Bearer t' } });
    expect(first.headers.get('link')).toBe(`<${server!.url}/linked?per_page=100&page=2>; rel="next"`);
  });

  it('every way the document says there is more, written together: a next cursor, a next URL, has_more and the total', async () => {
    await serve();
    const byToken = cursorPaginator({
      records: 'items',
      pageSize: { param: 'limit', value: 50 },
      cursor: { from: 'meta.next_page_token', to: { query: 'page_token' } },
      stop: [{ hasMore: 'has_more' }],
    });
    const tokens = await read(source(byToken, { path: '/both' }));
    expectAllOnce(tokens.records, 103);
    expect(tokens.pages).toBe(3);
    const byUrl = nextUrlPaginator({ records: 'items', next: 'links.next', pageSize: { param: 'limit', value: 50 } });
    const urls = await read(source(byUrl, { path: '/both' }));
    expect(urls.records.map((record) => record.id)).toEqual(tokens.records.map((record) => record.id));
    const byTotal = cursorPaginator({
      records: 'items',
      pageSize: { param: 'limit', value: 50 },
      cursor: { from: 'meta.next_page_token', to: { query: 'page_token' } },
      stop: [{ total: 'total_count' }],
    });
    expect((await read(source(byTotal, { path: '/both' }))).pages).toBe(3);
  });

  it("a HAL next link's href, pages counted from the document's first page, 0", async () => {
    await serve();
    const paginator = nextUrlPaginator({
      records: 'records',
      next: '_links.next.href',
      pageSize: { param: 'per_page', value: 40 },
    });
    const { records, pages } = await read(source(paginator, { path: '/hal' }));
    expectAllOnce(records, 103);
    expect(pages).toBe(3);
    const page = await fetch(`${server!.url}/hal?per_page=40&page=0`, { headers: { authorization: 'Bearer t' } });
    expect(((await page.json()) as { _links: unknown })._links).toEqual({
      next: { href: `${server!.url}/hal?per_page=40&page=1` },
    });
  });

  it('a next URL read from the answer, until it is null', async () => {
    await serve();
    const paginator = nextUrlPaginator({
      records: 'data',
      next: 'links.next',
      pageSize: { param: 'limit', value: 50 },
    });
    const { records, pages } = await read(source(paginator, { path: '/next' }));
    expectAllOnce(records, 103);
    expect(pages).toBe(3);
  });
});

describe('plugboard mock filters and grows for incremental reads', () => {
  const incremental: Incremental<unknown> = {
    cursorField: 'updated_at',
    newerThan: { query: 'updated_after', format: 'iso', earlierMs: 1 },
    order: 'oldest-first',
  };
  const byCursor = cursorPaginator({
    records: 'data',
    pageSize: { param: 'limit', value: 50 },
    cursor: { from: 'pagination.next_cursor', to: { query: 'cursor' } },
  });

  it('an incremental second run reads only the records grown since the first, a third only the next ones', async () => {
    await serve({ grow: 7 });
    const connector = source(byCursor, { path: '/cursor' }, incremental);
    const first = await read(connector);
    expectAllOnce(first.records, 103);
    expect(first.pages).toBe(3);
    const second = await read(connector, first.checkpoint);
    expectAllOnce(second.records, 7);
    expect(second.records[0]!.updated_at > first.records.at(-1)!.updated_at).toBe(true);
    const third = await read(connector, second.checkpoint);
    expectAllOnce(third.records, 7);
    const ids = new Set([...first.records, ...second.records, ...third.records].map((record) => record.id));
    expect(ids.size).toBe(117);
    // The second and third ask from the checkpoint, 1 ms early.
    const asked = server!.requests.filter((request) => request.operationId === 'byCursor');
    expect(asked).toHaveLength(5);
  });

  it('newest first, as the direction asks: a second run reads the new records across pages and stops where the first began', async () => {
    await serve({ grow: 60 });
    const connector = source(
      byCursor,
      { path: '/cursor', query: { direction: 'desc' } },
      { ...incremental, order: 'newest-first' },
    );
    const first = await read(connector);
    expect(first.records).toHaveLength(103);
    expect(first.records[0]!.updated_at >= first.records.at(-1)!.updated_at).toBe(true);
    const second = await read(connector, first.checkpoint);
    expect(second.records).toHaveLength(60);
    expect(second.pages).toBe(2);
    expect(new Set([...first.records, ...second.records].map((record) => record.id)).size).toBe(163);
  });

  it('grows before every read after the first, even one that stopped before the end (newest first, no filter)', async () => {
    await serve({ grow: 6 });
    const connector = source(
      byCursor,
      { path: '/cursor', query: { direction: 'desc' } },
      { cursorField: 'updated_at', order: 'newest-first' },
    );
    const first = await read(connector);
    expect(first.records).toHaveLength(103);
    // Each later run reads the six new records on its first page and stops where the last began.
    const second = await read(connector, first.checkpoint);
    expect({ records: second.records.length, pages: second.pages }).toEqual({ records: 6, pages: 1 });
    const third = await read(connector, second.checkpoint);
    expect({ records: third.records.length, pages: third.pages }).toEqual({ records: 6, pages: 1 });
    expect(new Set([...first.records, ...second.records, ...third.records].map((record) => record.id)).size).toBe(115);
  });

  it('a refused first page starts no read: nothing grows for it', async () => {
    await serve({ grow: 2 });
    const connector = source(byCursor, { path: '/cursor' }, incremental);
    const first = await read(connector);
    const refused = await fetch(`${server!.url}/cursor?updated_after=soon`, { headers: { authorization: 'Bearer t' } });
    expect(refused.status).toBe(400);
    expectAllOnce((await read(connector, first.checkpoint)).records, 2);
  });

  it('a record added later is newer than all before it: a filter that leaves its bound out finds each', async () => {
    await serve({ records: 1, grow: 1 });
    const headers = { authorization: 'Bearer t' };
    let last = '2000-01-01T00:00:00Z';
    const found: number[] = [];
    for (let run = 0; run < 40; run += 1) {
      const page = (await (
        await fetch(`${server!.url}/cursor?limit=50&updated_after=${last}`, { headers })
      ).json()) as { data: Record_[] };
      found.push(page.data.length);
      last = page.data.at(-1)?.updated_at ?? last;
    }
    expect(found).toEqual(Array.from({ length: 40 }, () => 1));
  });

  it('from no records at all, a list that grows: the first read finds none, the next the new ones', async () => {
    await serve({ records: 0, grow: 4 });
    const connector = source(byCursor, { path: '/cursor' }, incremental);
    const first = await read(connector);
    expect({ records: first.records, pages: first.pages }).toEqual({ records: [], pages: 1 });
    const second = await read(connector, first.checkpoint);
    expectAllOnce(second.records, 4);
    expect(second.records.at(-1)!.updated_at).toBe('2026-01-08T00:00:00Z');
  });

  it('a newer-than filter in unix seconds', async () => {
    await serve({ grow: 5 });
    const paged = offsetPaginator({
      records: 'data',
      offset: { param: 'offset' },
      pageSize: { param: 'limit', value: 50 },
      stop: ['short-page'],
    });
    const connector = source(
      paged,
      { path: '/changes' },
      {
        cursorField: 'updated_at',
        newerThan: { query: 'modified_since', format: 'unix', earlierMs: 1000 },
      },
    );
    const first = await read(connector);
    expectAllOnce(first.records, 103);
    const second = await read(connector, first.checkpoint);
    expectAllOnce(second.records, 5);
    const since = server!.requests.at(-1)!;
    expect(since.operationId).toBe('byUnixTime');
  });

  it('without --grow a second run reads nothing new; with offsets the filter applies to every page', async () => {
    await serve();
    const paged = offsetPaginator({
      records: 'results',
      offset: { param: 'offset' },
      pageSize: { param: 'limit', value: 10 },
      stop: [{ total: 'total' }],
    });
    const connector = source(paged, { path: '/offset' }, incremental);
    const first = await read(connector);
    expectAllOnce(first.records, 103);
    const second = await read(connector, first.checkpoint);
    expect(second.records).toEqual([]);
  });

  it('keeps only records newer (or older) than the bound, strictly, and newest first when the direction says', async () => {
    await serve();
    const all = (await read(source(byCursor, { path: '/cursor' }))).records;
    const bound = all[60]!.updated_at;
    const headers = { authorization: 'Bearer t' };
    const newer = (await (
      await fetch(`${server!.url}/cursor?limit=50&updated_after=${encodeURIComponent(bound)}`, { headers })
    ).json()) as { data: Record_[] };
    expect(newer.data.length).toBeGreaterThan(0);
    expect(newer.data.every((record) => record.updated_at > bound)).toBe(true);
    expect(newer.data.map((record) => record.id)).toEqual(
      all.filter((record) => record.updated_at > bound).map((record) => record.id),
    );
    const [from, to] = [all[20]!.updated_at, all[40]!.updated_at];
    const window = (await (
      await fetch(`${server!.url}/cursor?limit=50&updated_after=${from}&updated_before=${to}`, { headers })
    ).json()) as { data: Record_[] };
    expect(window.data.map((record) => record.id)).toEqual(
      all.filter((record) => record.updated_at > from && record.updated_at < to).map((record) => record.id),
    );
    const newestFirst = (await (await fetch(`${server!.url}/cursor?limit=3&direction=desc`, { headers })).json()) as {
      data: Record_[];
    };
    expect(newestFirst.data.map((record) => record.id)).toEqual(
      all
        .slice(-3)
        .reverse()
        .map((record) => record.id),
    );
  });

  it('makes the same records from the same seed, and others from another', async () => {
    const first = (await (
      await fetch(`${(await serve()).url}/next?limit=5`, { headers: { authorization: 'Bearer t' } })
    ).json()) as { data: unknown };
    await server!.close();
    const again = (await (
      await fetch(`${(await serve()).url}/next?limit=5`, { headers: { authorization: 'Bearer t' } })
    ).json()) as { data: unknown };
    await server!.close();
    const other = (await (
      await fetch(`${(await serve({ seed: 'other' })).url}/next?limit=5`, { headers: { authorization: 'Bearer t' } })
    ).json()) as { data: unknown };
    expect(again.data).toEqual(first.data);
    expect(other.data).not.toEqual(first.data);
  });
});

describe("Descript's published document", () => {
  it('serves every list that pages with records its answer schema accepts, formats checked', async () => {
    server = await startMockServer(await loadOpenApiDocument(DESCRIPT), { records: 30, clock: DAY });
    const document = await loadOpenApiDocument(DESCRIPT);
    const ajv = new Ajv({ strict: false });
    (addFormats as unknown as (ajv: Ajv) => void)(ajv);
    expect(server.lists.map((list) => `${list.method} ${list.path}`)).toEqual(['GET /jobs', 'GET /projects']);
    for (const list of server.lists) {
      const answer = await fetch(`${server.url}${list.path}?limit=100`, { headers: { authorization: 'Bearer t' } });
      const schema = document.paths[list.path]!.get!.responses!['200']!.content!['application/json']!.schema;
      const body = (await answer.json()) as { data: Array<Record<string, unknown>> };
      expect(ajv.validate(schema!, body), `${list.path}: ${JSON.stringify(ajv.errors)}`).toBe(true);
      expect(body.data).toHaveLength(30);
    }
  });
});

describe("Descript's jobs, listed from some days back", () => {
  it('finds the records: the newest is at the start of the day the mock started, by its clock', async () => {
    const now = Date.UTC(2026, 10, 26, 15, 30);
    server = await startMockServer(await loadOpenApiDocument(DESCRIPT), { grow: 4, clock: manualClock(now) });
    // jobs.list reads the last 7 days by default, newest first, from the connector's clock.
    const connector = createDescriptConnector({ clock: () => now });
    const options = {
      input: {},
      connection: { baseUrl: server.url },
      credential: () => 'mock-token-1234',
      transport,
      log: () => undefined,
    };
    const first = await readAll(connector, 'jobs.list', options);
    const created = (first.records as Array<{ created_at: string }>).map((job) => job.created_at);
    expect(created.length).toBeGreaterThan(100);
    expect([...created].sort().at(-1)).toBe('2026-11-26T00:00:00Z');
    expect(created.every((at) => Date.parse(at) > now - 7 * 24 * 60 * 60 * 1000)).toBe(true);
    const second = await readAll(connector, 'jobs.list', { ...options, checkpoint: first.checkpoint });
    expect(second.records).toHaveLength(4);
  });
});

describe('plugboard mock refuses hostile paging', () => {
  it('refuses a size over the cap, a cursor it did not give, a negative offset and page 0, in the error shape of the document', async () => {
    await serve();
    const headers = { authorization: 'Bearer t' };
    const refusal = async (path: string) => {
      const answer = await fetch(`${server!.url}${path}`, { headers });
      return { status: answer.status, body: (await answer.json()) as unknown };
    };
    const invalid = (message: string) => ({ status: 400, body: { error: { code: 'invalid_request', message } } });
    expect(await refusal('/cursor?limit=1000000000000')).toEqual(invalid('query.limit must be at most 50'));
    expect(await refusal('/cursor?cursor=forged')).toEqual(invalid('query.cursor is not a cursor this API gave'));
    const beyond = Buffer.from('pos:999999').toString('base64url');
    expect(await refusal(`/cursor?cursor=${beyond}`)).toEqual(invalid('query.cursor is not a cursor this API gave'));
    expect(await refusal('/offset?offset=-1')).toEqual(invalid('query.offset must be at least 0'));
    expect(await refusal('/numbered?page=0')).toEqual(invalid('query.page must be at least 1'));
    expect(await refusal('/offset?updated_after=yesterday')).toEqual(
      invalid('query.updated_after must be a date-time'),
    );
    const search = await fetch(`${server!.url}/search`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ q: 'x', cursor: 'forged' }),
    });
    expect({ status: search.status, body: await search.json() }).toEqual(
      invalid('body.cursor is not a cursor this API gave'),
    );
    // A page past the end is empty, however far.
    expect(await refusal('/offset?offset=9007199254740991')).toEqual({
      status: 200,
      body: { results: [], total: 103 },
    });
    expect(await refusal('/linked?page=900000000000000')).toEqual({ status: 200, body: [] });
    expect((await fetch(`${server!.url}/cursor?cursor=${'a'.repeat(9000)}`, { headers })).status).toBe(414);
  });
});

describe('plugboard mock bounds what it makes', () => {
  it('makes records of a schema that requires itself, or contains itself, to a bounded depth', async () => {
    const node: Record<string, unknown> = {
      type: 'object',
      required: ['id', 'child'],
      properties: { id: { type: 'string' }, child: { $ref: '#/components/schemas/Node' } },
    };
    const looped: Record<string, unknown> = {
      allOf: [{ $ref: '#/components/schemas/Looped' }, { type: 'object', properties: { id: { type: 'string' } } }],
    };
    const document = {
      openapi: '3.1.0',
      info: { title: 'Trees', version: '1.0.0' },
      components: { schemas: { Node: node, Looped: looped } },
      paths: Object.fromEntries(
        ['Node', 'Looped'].map((name) => [
          `/${name.toLowerCase()}`,
          {
            get: {
              parameters: [query('cursor', { type: 'string' })],
              responses: ok({
                type: 'object',
                properties: {
                  data: { type: 'array', items: { $ref: `#/components/schemas/${name}` } },
                  next_cursor: { type: 'string' },
                },
              }),
            },
          },
        ]),
      ),
    };
    const file = join(await mkdtemp(join(tmpdir(), 'plugboard-mock-pages-')), 'trees.json');
    await writeFile(file, JSON.stringify(document));
    server = await startMockServer(await loadOpenApiDocument(file), { records: 3 });
    for (const path of ['/node', '/looped']) {
      const answer = await fetch(`${server.url}${path}`);
      expect(answer.status, path).toBe(200);
      const { data } = (await answer.json()) as { data: unknown[] };
      expect(data).toHaveLength(3);
      expect(JSON.stringify(data).length).toBeLessThan(10_000);
    }
  });
});

describe('plugboard mock --records --grow --seed', () => {
  it('says how each list operation pages, and refuses a count it cannot serve', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'plugboard-mock-pages-')), 'paged.json');
    await writeFile(file, JSON.stringify(PAGED));
    const io = bufferIo();
    const controller = new AbortController();
    const running = runCli(['mock', file, '--records', '12', '--grow', '3'], io.io, { signal: controller.signal });
    await expect.poll(() => io.stdout()).toMatch(/GET \/next/);
    expect(io.stdout()).toContain(
      '  GET /cursor: 12 records (+3 before each later read); cursor in query.cursor, next cursor at pagination.next_cursor; limit 20 (max 50); filters updated_after (after), updated_before (before); direction default asc\n',
    );
    expect(io.stdout()).toContain(
      '  GET /linked: 12 records (+3 before each later read); page number in query.page from 1, Link rel="next"; per_page 30 (max 100)\n',
    );
    controller.abort();
    expect(await running).toBe(0);
    const refused = bufferIo();
    expect(await runCli(['mock', file, '--records', 'many'], refused.io)).toBe(2);
    expect(refused.stderr()).toMatch(/--records must be a whole number from 0 to 100000, not 'many'/);
  });
});
