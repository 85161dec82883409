import { createTransport, PagingLoopError, readAll, SchemaMismatchError } from '@plugboard/sdk';
import { answer, startFaultServer, type FaultServer } from '@plugboard/testing';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { descript } from '../src/index.js';
import { failure } from './support.js';

/** A provider whose cursors come round in a cycle: the read must stop, not page forever. */

let server: FaultServer | undefined;
const transport = createTransport({ network: { allow: ['127.0.0.0/8'] } });
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(() => transport.close());

/** Project `p<n>`, updated `n` seconds into 2026. */
function project(page: number) {
  const at = new Date(Date.UTC(2026, 0, 1) + page * 1000).toISOString();
  return { id: `p${page}`, name: `Project ${page}`, created_at: at, updated_at: at };
}

/** Answers page `c<n>` with one project and `next_cursor` `c<next(n)>`, or none when `next` gives undefined (the first page is `c0`). */
async function pagedProvider(next: (page: number) => number | undefined): Promise<FaultServer> {
  return startFaultServer((request) => {
    const page = Number((request.query.get('cursor') ?? 'c0').slice(1));
    const following = next(page);
    return answer({
      status: 200,
      body: {
        data: [project(page)],
        pagination: following === undefined ? {} : { next_cursor: `c${following}` },
      },
    });
  });
}

const read = (url: string) =>
  readAll(descript, 'projects.list', {
    input: {},
    connection: { baseUrl: url },
    credential: () => 'descript-token-123456',
    transport,
    retry: { retries: 0, minTimeoutMs: 1, maxTimeoutMs: 1 },
    log: () => undefined,
  });

describe('cursor paging against a provider that loops', () => {
  it.each([
    ['the same cursor again', 1, 1],
    ['a cycle of 3 after 5 pages', 5, 3],
    ['a cycle of 100 after 40 pages', 40, 100],
  ])('stops on %s, before asking for a page a second time', async (_name, lead, cycle) => {
    // Pages 1..lead lead into a cycle of `cycle` pages: lead, lead+1, ..., lead+cycle-1, lead, ...
    server = await pagedProvider((page) => (page + 1 < lead + cycle ? page + 1 : lead));
    const error = await failure(read(server.url));
    expect(error).toBeInstanceOf(PagingLoopError);
    expect(String(error.message)).toMatch(
      new RegExp(`descript projects.list: page ${lead + cycle + 1} asks for a page already read`),
    );
    expect(server.count).toBe(lead + cycle);
  });

  it('reads a long list to its end: no cursor is taken for a loop', async () => {
    server = await pagedProvider((page) => (page < 1_000 ? page + 1 : undefined));
    const run = await read(server.url);
    expect(run.records).toHaveLength(1_001);
  });
});

describe('a next_cursor that is not text', () => {
  /** The first page answers `next_cursor: value`; the page it leads to is the last. */
  const provider = (value: unknown) =>
    startFaultServer((request) => {
      const first = request.query.get('cursor') === null;
      return answer({
        status: 200,
        body: { data: [project(first ? 1 : 2)], pagination: first ? { next_cursor: value } : {} },
        headers: { 'x-request-id': first ? 'req-1' : 'req-2' },
      });
    });

  it('a number is taken as its decimal text: the read goes on to page 2', async () => {
    server = await provider(2);
    const run = await read(server.url);
    expect(run.records.map((record) => (record as { id: string }).id)).toEqual(['p1', 'p2']);
    expect(server.requests.map((request) => request.query.get('cursor'))).toEqual([null, '2']);
  });

  it.each([
    [{}, 'object'],
    [true, 'boolean'],
    [[], 'array'],
  ])(
    '%j fails the read with schema_mismatch naming pagination.next_cursor and the type, never success',
    async (value, type) => {
      server = await provider(value);
      const error = await failure(read(server.url));
      expect(error).toBeInstanceOf(SchemaMismatchError);
      expect(error).toMatchObject({
        code: 'schema_mismatch',
        requestId: 'req-1',
        issues: [{ path: 'pagination.next_cursor', message: expect.stringContaining(`received ${type}`) }],
      });
      expect(server.count).toBe(1);
    },
  );
});
