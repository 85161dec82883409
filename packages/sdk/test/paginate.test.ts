import { describe, expect, it } from 'vitest';
import {
  cursorPaginator,
  linkHeaderPaginator,
  nextUrlPaginator,
  offsetPaginator,
  pageNumberPaginator,
  SchemaMismatchError,
} from '../src/index.js';
import { useHarness } from './support/harness.js';
import { items, type pagedConnector, readPaged } from './support/paged.js';
import { json } from './support/server.js';

const h = useHarness();
const all = items(5);

const read = (paginator: Parameters<typeof pagedConnector>[0], request?: Parameters<typeof pagedConnector>[1]) =>
  readPaged(h, paginator, request);

describe('ctx.http.paginate: each paginator against a server paging that way', () => {
  it('a cursor from a body path, sent as a query parameter, until none comes', async () => {
    await h.start((req, res) => {
      const at = Number(req.query.get('cursor') ?? 0);
      const size = Number(req.query.get('limit'));
      const next = at + size < all.length ? String(at + size) : undefined;
      json(res, 200, { data: all.slice(at, at + size), pagination: { next_cursor: next } });
    });
    const paginator = cursorPaginator({
      records: 'data',
      pageSize: { param: 'limit', value: 2, max: 100 },
      cursor: { from: 'pagination.next_cursor', to: { query: 'cursor' } },
    });
    expect(await read(paginator)).toEqual({ ids: ['i1', 'i2', 'i3', 'i4', 'i5'], pages: 3 });
    expect(h.server.requests.map((request) => request.query.toString())).toEqual([
      'limit=2',
      'limit=2&cursor=2',
      'limit=2&cursor=4',
    ]);
  });

  it('a cursor from a header, with an initial value, sent as a header', async () => {
    await h.start((req, res) => {
      const at = Number(req.headers['x-page-token']);
      json(res, 200, all.slice(at, at + 2), at + 2 < all.length ? { 'x-next-token': String(at + 2) } : {});
    });
    const paginator = cursorPaginator({
      records: '',
      cursor: { from: { header: 'x-next-token' }, to: { header: 'x-page-token' }, initial: '0' },
    });
    expect((await read(paginator)).ids).toEqual(['i1', 'i2', 'i3', 'i4', 'i5']);
    expect(h.server.requests.map((request) => request.headers['x-page-token'])).toEqual(['0', '2', '4']);
  });

  it('a cursor sent in a JSON body and one sent as a path segment', async () => {
    await h.start((req, res) => {
      const at = Number(req.method === 'POST' ? JSON.parse(req.body).after : req.path.split('/').at(-1));
      json(res, 200, { items: all.slice(at, at + 2), next: at + 2 < all.length ? String(at + 2) : null });
    });
    const body = cursorPaginator({
      records: 'items',
      cursor: { from: 'next', to: { body: 'after' }, initial: '0' },
    });
    expect((await read(body, { method: 'POST', path: '/search', json: { q: 'x' } })).ids).toHaveLength(5);
    expect(h.server.requests.map((request) => request.body)).toEqual([
      '{"q":"x","after":"0"}',
      '{"q":"x","after":"2"}',
      '{"q":"x","after":"4"}',
    ]);
    const path = cursorPaginator({ records: 'items', cursor: { from: 'next', to: { path: 'at' }, initial: '0' } });
    expect((await read(path, { path: '/items/from/{at}' })).ids).toHaveLength(5);
    expect(h.server.requests.slice(3).map((request) => request.path)).toEqual([
      '/items/from/0',
      '/items/from/2',
      '/items/from/4',
    ]);
  });

  it('an offset and a limit, until an empty page', async () => {
    await h.start((req, res) => {
      const offset = Number(req.query.get('offset'));
      json(res, 200, { data: all.slice(offset, offset + Number(req.query.get('limit'))) });
    });
    const paginator = offsetPaginator({
      records: 'data',
      offset: { param: 'offset' },
      pageSize: { param: 'limit', value: 2 },
    });
    expect(await read(paginator)).toEqual({ ids: ['i1', 'i2', 'i3', 'i4', 'i5'], pages: 4 });
    expect(h.server.requests.map((request) => request.query.get('offset'))).toEqual(['0', '2', '4', '5']);
  });

  it('a page number, until has_more is false, or until the total is reached', async () => {
    await h.start((req, res) => {
      const page = Number(req.query.get('page'));
      const slice = all.slice((page - 1) * 2, page * 2);
      json(res, 200, { results: slice, has_more: page * 2 < all.length, meta: { total: all.length } });
    });
    const byHasMore = pageNumberPaginator({
      records: 'results',
      page: { param: 'page' },
      pageSize: { param: 'per_page', value: 2 },
      stop: [{ hasMore: 'has_more' }],
    });
    expect(await read(byHasMore)).toEqual({ ids: ['i1', 'i2', 'i3', 'i4', 'i5'], pages: 3 });
    const byTotal = pageNumberPaginator({
      records: 'results',
      page: { param: 'page' },
      stop: [{ total: 'meta.total' }],
    });
    expect(await read(byTotal)).toEqual({ ids: ['i1', 'i2', 'i3', 'i4', 'i5'], pages: 3 });
    expect(h.server.requests.map((request) => request.query.get('page'))).toEqual(['1', '2', '3', '1', '2', '3']);
  });

  it('the RFC 8288 Link header, rel=next, relative or absolute', async () => {
    const server = await h.start((req, res) => {
      const at = Number(req.query.get('from') ?? 0);
      const links = [`<${server.url}/items?from=0>; rel="first"`];
      if (at + 2 < all.length)
        links.push(
          at === 0 ? `</items?from=${at + 2}>; rel="next"` : `<${server.url}/items?from=${at + 2}>; rel="next last"`,
        );
      json(res, 200, all.slice(at, at + 2), { link: links.join(', ') });
    });
    expect(await read(linkHeaderPaginator({ records: '' }))).toEqual({ ids: ['i1', 'i2', 'i3', 'i4', 'i5'], pages: 3 });
    expect(server.requests.map((request) => request.query.get('from'))).toEqual([null, '2', '4']);
  });

  it('a next URL read from the answer, with the credential on the same origin', async () => {
    const server = await h.start((req, res) => {
      const at = Number(req.query.get('from') ?? 0);
      json(res, 200, {
        data: all.slice(at, at + 2),
        links: { next: at + 2 < all.length ? `${server.url}/items?from=${at + 2}` : null },
      });
    });
    expect(await read(nextUrlPaginator({ records: 'data', next: 'links.next' }))).toEqual({
      ids: ['i1', 'i2', 'i3', 'i4', 'i5'],
      pages: 3,
    });
    expect(server.requests.map((request) => request.headers.authorization)).toEqual([
      'Bearer test-credential-1234',
      'Bearer test-credential-1234',
      'Bearer test-credential-1234',
    ]);
  });

  it('a custom paginator is a small object with the same contract', async () => {
    await h.start((req, res) => {
      const at = Number(req.query.get('after') ?? 0);
      json(res, 200, { items: all.slice(at, at + 3), after: at + 3 < all.length ? String(at + 3) : undefined });
    });
    const ids = await read({
      first: (request) => request,
      records: (answer) => (answer.data as { items?: unknown[] }).items,
      next: (answer, request) => {
        const after = (answer.data as { after?: string }).after;
        return after ? { ...request, query: { ...request.query, after } } : undefined;
      },
    });
    expect(ids).toEqual({ ids: ['i1', 'i2', 'i3', 'i4', 'i5'], pages: 2 });
  });
});

describe('a stop condition read from the answer', () => {
  /** A server that pages by number, two a page, the answer built by `extra` from the page number. */
  const serve = (extra: (page: number) => Record<string, unknown>) =>
    h.start((req, res) => {
      const page = Number(req.query.get('page'));
      json(
        res,
        200,
        { results: all.slice((page - 1) * 2, page * 2), ...extra(page) },
        { 'x-request-id': `req-${page}` },
      );
    });
  const byPage = (stop: { hasMore: string } | { total: string }) =>
    pageNumberPaginator({ records: 'results', page: { param: 'page' }, stop: [stop, 'empty-page'] });
  const failure = (paginator: ReturnType<typeof byPage>) => read(paginator).catch((error: unknown) => error);

  it('a page without the has-more value is a SchemaMismatchError naming its path and the page, never the end', async () => {
    // Pages 1 and 2 say there is more; page 3 says nothing.
    await serve((page) => (page < 3 ? { meta: { has_more: true } } : {}));
    const error = await failure(byPage({ hasMore: 'meta.has_more' }));
    expect(error).toBeInstanceOf(SchemaMismatchError);
    expect(error).toMatchObject({
      requestId: 'req-3',
      issues: [{ path: 'meta.has_more', message: 'page 3 has no true or false here (the stop condition reads it)' }],
    });
    expect(h.server.requests).toHaveLength(3);
  });

  it('a has-more value that is not true or false is one too', async () => {
    await serve(() => ({ meta: { has_more: 'yes' } }));
    const error = await failure(byPage({ hasMore: 'meta.has_more' }));
    expect(error).toMatchObject({ issues: [{ path: 'meta.has_more', message: expect.stringContaining('page 1') }] });
  });

  it('a page without the total, or with one that is not a number, is a SchemaMismatchError naming its path', async () => {
    await serve((page) => (page === 1 ? { total: 5 } : {}));
    expect(await failure(byPage({ total: 'total' }))).toMatchObject({
      code: 'schema_mismatch',
      issues: [{ path: 'total', message: 'page 2 has no number here (the stop condition reads it)' }],
    });
    await serve(() => ({ total: 'many' }));
    expect(await failure(byPage({ total: 'total' }))).toMatchObject({ issues: [{ path: 'total' }] });
  });

  it('a condition that holds ends the read even when another one has no value to read', async () => {
    // The last page is empty and carries no has-more value: 'empty-page' holds, so the read ends well.
    await serve((page) => (page <= 3 ? { has_more: true } : {}));
    expect(await read(byPage({ hasMore: 'has_more' }))).toEqual({ ids: ['i1', 'i2', 'i3', 'i4', 'i5'], pages: 4 });
  });
});

it('each declared paginator says how it asks for the next page (`kind`); a custom one need not', () => {
  const records = 'data';
  expect([
    cursorPaginator({ records, cursor: { from: 'next', to: { query: 'cursor' } } }).kind,
    offsetPaginator({ records, offset: { param: 'offset' }, pageSize: { param: 'limit', value: 2 } }).kind,
    pageNumberPaginator({ records, page: { param: 'page' } }).kind,
    nextUrlPaginator({ records, next: 'next' }).kind,
    linkHeaderPaginator({ records }).kind,
  ]).toEqual(['cursor', 'offset', 'page-number', 'next-url', 'link-header']);
});
