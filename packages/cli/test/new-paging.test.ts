import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { linkDependencies, startMock, tsc } from './scaffold-support.js';
import { bufferIo } from './support.js';

/**
 * `plugboard new --from-openapi` on a document with a list of each paging style: the scaffold
 * type-checks, passes `defineConnector`'s checks, and each list reads every page of a local
 * provider that pages as its document says, two records a page (the most the document allows).
 */

const Item = {
  type: 'object',
  required: ['id', 'updated_at'],
  properties: { id: { type: 'string' }, updated_at: { type: 'string', format: 'date-time' } },
};
const items = { type: 'array', items: Item };
const ok = (schema: unknown, headers?: Record<string, unknown>) => ({
  '200': { description: 'OK', ...(headers ? { headers } : {}), content: { 'application/json': { schema } } },
});
const int = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  in: 'query',
  schema: { type: 'integer', ...extra },
});
const size = (name: string) => int(name, { minimum: 1, maximum: 2 });
const DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'Styles', version: '1.0.0' },
  servers: [{ url: 'https://api.styles.example/v1' }],
  paths: {
    '/cursor-items': {
      get: {
        operationId: 'listCursorItems',
        parameters: [
          { name: 'after', in: 'query', schema: { type: 'string' } },
          size('limit'),
          { name: 'updated_since', in: 'query', schema: { type: 'string', format: 'date-time' } },
        ],
        responses: ok({ type: 'object', properties: { data: items, next_cursor: { type: 'string' } } }),
      },
    },
    '/offset-items': {
      get: {
        operationId: 'listOffsetItems',
        parameters: [int('offset', { minimum: 0 }), size('limit')],
        responses: ok({ type: 'object', properties: { results: items, total: { type: 'integer' } } }),
      },
    },
    '/page-items': {
      get: {
        operationId: 'listPageItems',
        parameters: [int('page', { minimum: 1 }), size('per_page')],
        responses: ok({ type: 'object', properties: { data: items, total_pages: { type: 'integer' } } }),
      },
    },
    '/link-items': {
      get: {
        operationId: 'listLinkItems',
        parameters: [int('page'), size('per_page')],
        responses: ok(items, { Link: { schema: { type: 'string' } } }),
      },
    },
    '/next-items': {
      get: {
        operationId: 'listNextItems',
        parameters: [size('limit')],
        responses: ok({
          type: 'object',
          properties: {
            items,
            links: { type: 'object', properties: { next: { type: 'string', format: 'uri' } } },
          },
        }),
      },
    },
    '/unix-items': {
      get: {
        operationId: 'listUnixItems',
        parameters: [int('offset', { minimum: 0 }), size('limit'), int('updated_since')],
        responses: ok({ type: 'object', properties: { results: items } }),
      },
    },
    '/plain-items': {
      get: { operationId: 'listPlainItems', responses: ok({ type: 'object', properties: { items } }) },
    },
  },
};

const RECORDS = Array.from({ length: 5 }, (_, index) => ({
  id: `i${index + 1}`,
  updated_at: `2026-03-0${index + 1}T00:00:00.000Z`,
}));

/** Serves the records in pages as each path's document says; the page size is what the client asks for. */
function answer(url: URL, base: string): { body: unknown; headers?: Record<string, string> } {
  const query = url.searchParams;
  const per = Number(query.get('limit') ?? query.get('per_page') ?? 20);
  const since = query.get('updated_since');
  // `/unix-items` takes the instant in seconds since the epoch.
  const after = since && /^\d+$/.test(since) ? new Date(Number(since) * 1000).toISOString() : since;
  const records = after ? RECORDS.filter((record) => record.updated_at > after) : RECORDS;
  const from = (start: number) => records.slice(start, start + per);
  switch (url.pathname) {
    case '/v1/cursor-items': {
      const start = Number(query.get('after') ?? 0);
      return {
        body: { data: from(start), ...(start + per < records.length ? { next_cursor: String(start + per) } : {}) },
      };
    }
    case '/v1/unix-items':
    case '/v1/offset-items': {
      const start = Number(query.get('offset'));
      return { body: { results: from(start), total: records.length } };
    }
    case '/v1/page-items': {
      const page = Number(query.get('page'));
      return { body: { data: from((page - 1) * per), total_pages: Math.ceil(records.length / per) } };
    }
    case '/v1/link-items': {
      const page = Number(query.get('page') ?? 1);
      const next =
        page * per < records.length ? `<${base}/link-items?page=${page + 1}&per_page=${per}>; rel="next"` : '';
      return { body: from((page - 1) * per), headers: next ? { link: next } : {} };
    }
    case '/v1/next-items': {
      const start = Number(query.get('start') ?? 0);
      const next = start + per < records.length ? `${base}/next-items?start=${start + per}&limit=${per}` : undefined;
      return { body: { items: from(start), links: next ? { next } : {} } };
    }
    default:
      return { body: { items: RECORDS } };
  }
}

describe('plugboard new --from-openapi: each paging style', () => {
  let server: Server;
  let base: string;
  const asked: string[] = [];
  let dir: string;

  beforeAll(async () => {
    server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', base);
      asked.push(`${url.pathname}${url.search}`);
      const { body, headers = {} } = answer(url, base);
      response.writeHead(200, { 'content-type': 'application/json', ...headers });
      response.end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;

    const cwd = await mkdtemp(join(tmpdir(), 'plugboard-new-paging-'));
    const file = join(cwd, 'styles.json');
    await writeFile(file, JSON.stringify(DOCUMENT));
    const operations = Object.values(DOCUMENT.paths).map((item) => item.get.operationId);
    const created = bufferIo();
    const argv = ['new', 'styles', '--from-openapi', file, '--operations', operations.join(',')];
    expect(await runCli(argv, { ...created.io, cwd }), created.stderr()).toBe(0);
    dir = join(cwd, 'styles');
    await linkDependencies(dir);
    await tsc(dir, '--noEmit');
    await tsc(dir, '-p', 'tsconfig.build.json');
  }, 60_000);

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });

  const run = async (action: string, extra: string[] = [], url = base) => {
    const { io, stdout, stderr } = bufferIo({ PLUGBOARD_CREDENTIAL: 'styles-token' });
    const argv = ['run', action, '--connector', dir, '--base-url', url, ...extra];
    expect(await runCli(argv, { ...io, cwd: dir }), stderr()).toBe(0);
    return stdout()
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { id: string }).id);
  };

  it.each([
    [
      'cursor_items.list',
      'cursorPaginator',
      ['/v1/cursor-items?limit=2', '/v1/cursor-items?limit=2&after=2', '/v1/cursor-items?limit=2&after=4'],
    ],
    [
      'offset_items.list',
      'offsetPaginator',
      ['/v1/offset-items?limit=2&offset=0', '/v1/offset-items?limit=2&offset=2', '/v1/offset-items?limit=2&offset=4'],
    ],
    [
      'page_items.list',
      'pageNumberPaginator',
      [
        '/v1/page-items?per_page=2&page=1',
        '/v1/page-items?per_page=2&page=2',
        '/v1/page-items?per_page=2&page=3',
        '/v1/page-items?per_page=2&page=4',
      ],
    ],
    [
      'link_items.list',
      'linkHeaderPaginator',
      ['/v1/link-items?per_page=2', '/v1/link-items?page=2&per_page=2', '/v1/link-items?page=3&per_page=2'],
    ],
    [
      'next_items.list',
      'nextUrlPaginator',
      ['/v1/next-items?limit=2', '/v1/next-items?start=2&limit=2', '/v1/next-items?start=4&limit=2'],
    ],
  ])('%s declares %s and reads every page', async (action, factory, requests) => {
    const source = await readFile(join(dir, 'src', 'actions', `${action}.ts`), 'utf8');
    expect(source).toContain(`paginator: ${factory}({`);
    asked.length = 0;
    expect(await run(action)).toEqual(RECORDS.map((record) => record.id));
    expect(asked).toEqual(requests);
  });

  it('a list without paging in its document keeps its one request and says what to do', async () => {
    const source = await readFile(join(dir, 'src', 'actions', 'plain_items.list.ts'), 'utf8');
    expect(source).toContain('// TODO paging: the document shows no way to ask for a further page');
    expect(source).not.toContain('paginator:');
    expect(await run('plain_items.list')).toEqual(RECORDS.map((record) => record.id));
  });

  it('the list with a newer-than filter reads, on its second run, only what is newer than its checkpoint', async () => {
    const source = await readFile(join(dir, 'src', 'actions', 'cursor_items.list.ts'), 'utf8');
    expect(source).toContain("newerThan: { query: 'updated_since', format: 'iso', earlierMs: 1 },");
    const state = ['--state', join(dir, '.run-state')];
    expect(await run('cursor_items.list', state)).toEqual(RECORDS.map((record) => record.id));
    asked.length = 0;
    expect(await run('cursor_items.list', state)).toEqual([]);
    // Asked from 1 ms before the newest instant read: the record at it comes back and is dropped.
    expect(asked).toEqual(['/v1/cursor-items?limit=2&updated_since=2026-03-04T23%3A59%3A59.999Z']);
  });

  it('a newer-than filter in seconds since the epoch is sent in seconds, from where the first run is told to start', async () => {
    const source = await readFile(join(dir, 'src', 'actions', 'unix_items.list.ts'), 'utf8');
    expect(source).toContain("newerThan: { query: 'updated_since', format: 'unix', earlierMs: 1 },");
    const state = ['--state', join(dir, '.unix-state')];
    const start = Date.parse(RECORDS[2]!.updated_at) / 1000;
    asked.length = 0;
    expect(await run('unix_items.list', [...state, '--input', JSON.stringify({ updated_since: start })])).toEqual([
      'i3',
      'i4',
      'i5',
    ]);
    // Asked from a second before the start: the record at the start comes back and is read, none having been read at it.
    expect(asked[0]).toBe(`/v1/unix-items?updated_since=${start - 1}&limit=2&offset=0`);
    asked.length = 0;
    expect(await run('unix_items.list', [...state, '--input', JSON.stringify({ updated_since: start })])).toEqual([]);
    expect(asked[0]).toBe(
      `/v1/unix-items?updated_since=${Date.parse(RECORDS[4]!.updated_at) / 1000 - 1}&limit=2&offset=0`,
    );
  });

  it('each list reads every page of plugboard mock serving the same document', async () => {
    const { url, stop } = await startMock(dir, ['openapi.json', '--records', '7']);
    try {
      for (const action of ['cursor_items', 'offset_items', 'page_items', 'link_items', 'next_items', 'unix_items'])
        expect(new Set(await run(`${action}.list`, [], url)).size, action).toBe(7);
    } finally {
      await stop();
    }
  });
});
