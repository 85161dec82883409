import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type MockServer, startMockServer } from '../src/mock/server.js';
import { loadOpenApiDocument, operationsOf, type Schema } from '../src/openapi-document.js';
import { detectPaging } from '../src/openapi-paging.js';

/**
 * `plugboard new --from-openapi` and `plugboard mock` read a list's paging one way: on the lists
 * where their readings used to part, the paginator a scaffold declares names what the stand-in
 * serves, and the stand-in pages only what the scaffold reads as a list.
 */

const Item = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } };
const ok = (schema: Schema, headers: string[] = []) => ({
  '200': {
    description: 'A page',
    headers: Object.fromEntries(headers.map((name) => [name, { schema: { type: 'string' } }])),
    content: { 'application/json': { schema } },
  },
});
const query = (name: string, schema: Schema) => ({ name, in: 'query', schema });
const DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'Parted', version: '1.0.0' },
  servers: [{ url: 'https://api.parted.example' }],
  paths: {
    // A next cursor in a header the stand-in always wrote, and the scaffold did not read.
    '/continued': {
      get: {
        operationId: 'listContinued',
        parameters: [query('page_token', { type: 'string' })],
        responses: ok({ type: 'array', items: Item }, ['Continuation-Token']),
      },
    },
    // Two page sizes: the scaffold took the first written, the stand-in the likelier name.
    '/sized': {
      get: {
        operationId: 'listSized',
        parameters: [
          query('count', { type: 'integer', maximum: 10 }),
          query('limit', { type: 'integer', maximum: 100 }),
          query('offset', { type: 'integer' }),
        ],
        responses: ok({ type: 'object', properties: { data: { type: 'array', items: Item } } }),
      },
    },
    // One thing, with a list inside: the stand-in paged it, the scaffold read one record.
    '/items/{id}': {
      get: {
        operationId: 'getItem',
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          query('page', { type: 'integer' }),
        ],
        responses: ok({ type: 'object', properties: { data: { type: 'array', items: Item } } }),
      },
    },
  },
};

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function read() {
  const file = join(await mkdtemp(join(tmpdir(), 'plugboard-list-paging-')), 'parted.json');
  await writeFile(file, JSON.stringify(DOCUMENT));
  const document = await loadOpenApiDocument(file);
  server = await startMockServer(document, { records: 5 });
  const served = new Map(server.lists.map((list) => [list.path, list.paging]));
  const declared = new Map(
    operationsOf(document).map(({ path, parameters, operation }) => {
      const response = operation.responses?.['200'];
      const answer = response?.content?.['application/json']?.schema;
      return [path, detectPaging({ path, parameters, answer, headers: Object.keys(response?.headers ?? {}) })];
    }),
  );
  return { served, declared };
}

describe('the scaffold and the stand-in read a list alike', () => {
  it('a next cursor in a Continuation-Token header: declared, and served', async () => {
    const { served, declared } = await read();
    expect(declared.get('/continued')?.paginator).toEqual({
      kind: 'cursor',
      options: {
        records: '',
        cursor: { from: { header: 'Continuation-Token' }, to: { query: 'page_token' } },
        stop: ['empty-page'],
      },
    });
    expect(served.get('/continued')).toMatch(/^cursor in query\.page_token, next cursor in header continuation-token;/);
  });

  it('the page size by its likelier name, limit before count, in both', async () => {
    const { served, declared } = await read();
    expect(declared.get('/sized')?.paginator).toMatchObject({
      kind: 'offset',
      options: { pageSize: { param: 'limit', value: 100, max: 100 } },
    });
    expect(served.get('/sized')).toMatch(/; limit 20 \(max 100\)$/);
  });

  it('an answer about one thing is no list to either', async () => {
    const { served, declared } = await read();
    expect(declared.get('/items/{id}')?.records.many).toBe(false);
    expect(served.has('/items/{id}')).toBe(false);
  });
});
