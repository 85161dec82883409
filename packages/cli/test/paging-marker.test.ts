import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type MockServer, startMockServer } from '../src/mock/server.js';
import { loadOpenApiDocument, operationsOf } from '../src/openapi-document.js';
import { detectPaging } from '../src/openapi-paging.js';
import { entityNames, scaffoldFromOpenApi } from './scaffold-support.js';

/**
 * Lists as Box's document shapes them: a collection whose parts come in an `allOf` (an
 * offset/limit part with `total_count`, a marker part with `next_marker`, and the `entries`),
 * and a list paged by `marker`/`next_marker` alone. The scaffold's detection and the stand-in
 * read the same document the same way: the offset with its total where the list has both (the
 * marker needs a switch the read cannot know of), the marker where it is the only way.
 */

const Item = {
  type: 'object',
  properties: { id: { type: 'string' }, type: { type: 'string' }, name: { type: 'string' } },
};
const MarkerPart = {
  type: 'object',
  properties: {
    limit: { type: 'integer', format: 'int64' },
    next_marker: { type: 'string', nullable: true },
    prev_marker: { type: 'string', nullable: true },
  },
};
const OffsetPart = {
  type: 'object',
  properties: {
    total_count: { type: 'integer', format: 'int64' },
    limit: { type: 'integer', format: 'int64' },
    offset: { type: 'integer', format: 'int64' },
    order: { type: 'array', items: { type: 'object', properties: { by: { type: 'string' } } } },
  },
};
const limit = { name: 'limit', in: 'query', schema: { type: 'integer', format: 'int64', maximum: 1000 } };
const marker = { name: 'marker', in: 'query', schema: { type: 'string' } };
const ok = (schema: unknown) => ({
  '200': { description: 'a page', content: { 'application/json': { schema } } },
});

const BOX_LIKE = {
  openapi: '3.0.2',
  info: { title: 'Box-like', version: '2.0.0' },
  servers: [{ url: 'https://api.box-like.example/2.0' }],
  paths: {
    '/folders/{folder_id}/items': {
      get: {
        operationId: 'get_folders_id_items',
        parameters: [
          { name: 'folder_id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'usemarker', in: 'query', schema: { type: 'boolean' } },
          marker,
          { name: 'offset', in: 'query', schema: { type: 'integer', format: 'int64', default: 0 } },
          limit,
        ],
        responses: ok({ $ref: '#/components/schemas/Items' }),
      },
    },
    '/webhooks': {
      get: {
        operationId: 'get_webhooks',
        parameters: [marker, limit],
        responses: ok({ $ref: '#/components/schemas/Webhooks' }),
      },
    },
  },
  components: {
    schemas: {
      Item,
      Items: {
        type: 'object',
        allOf: [
          MarkerPart,
          OffsetPart,
          { properties: { entries: { type: 'array', items: { $ref: '#/components/schemas/Item' } } } },
        ],
      },
      Webhooks: {
        type: 'object',
        allOf: [
          MarkerPart,
          { properties: { entries: { type: 'array', items: { $ref: '#/components/schemas/Item' } } } },
        ],
      },
    },
  },
};

async function boxLikeFile() {
  const file = join(await mkdtemp(join(tmpdir(), 'plugboard-marker-')), 'openapi.json');
  await writeFile(file, JSON.stringify(BOX_LIKE));
  return file;
}
const boxLike = async () => loadOpenApiDocument(await boxLikeFile());

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('paging by offset with a total, and by marker', () => {
  it('the scaffold declares the offset with total_count where both are there, and the marker where it is the only way', async () => {
    const document = await boxLike();
    const paging = Object.fromEntries(
      operationsOf(document).map(({ path, operation, parameters }) => {
        const schema = operation.responses!['200']!.content!['application/json']!.schema;
        return [operation.operationId, detectPaging({ path, parameters, answer: schema, headers: [] })];
      }),
    );
    const items = paging.get_folders_id_items!;
    expect(items.paginator).toEqual({
      kind: 'offset',
      options: {
        records: 'entries',
        offset: { param: 'offset' },
        pageSize: { param: 'limit', value: 1000, max: 1000 },
        stop: [{ total: 'total_count' }],
      },
    });
    // The record is the list's item, never the page around it.
    expect(items.records.item).toBe(document.components!.schemas!.Item);
    expect(paging.get_webhooks!.paginator).toEqual({
      kind: 'cursor',
      options: { records: 'entries', cursor: { from: 'next_marker', to: { query: 'marker' } }, stop: ['empty-page'] },
    });
    expect(paging.get_webhooks!.records.item).toBe(document.components!.schemas!.Item);
  });

  it('plugboard mock pages the same lists: by offset to total_count, and by marker until next_marker is null', async () => {
    server = await startMockServer(await boxLike(), { records: 7 });
    expect(server.lists.map((list) => `${list.path}: ${list.paging}`)).toEqual([
      expect.stringMatching(/^\/folders\/\{folder_id\}\/items: .*offset/),
      expect.stringMatching(/^\/webhooks: .*marker/),
    ]);
    const byOffset = await fetch(`${server.url}/folders/0/items?offset=5&limit=5`);
    const page = (await byOffset.json()) as { entries: unknown[]; total_count: number };
    expect({ entries: page.entries.length, total: page.total_count }).toEqual({ entries: 2, total: 7 });

    const ids: string[] = [];
    let next: string | null | undefined;
    let pages = 0;
    do {
      const answer = await fetch(`${server.url}/webhooks?limit=3${next ? `&marker=${encodeURIComponent(next)}` : ''}`);
      const body = (await answer.json()) as { entries: Array<{ id: string }>; next_marker?: string | null };
      ids.push(...body.entries.map((entry) => entry.id));
      next = body.next_marker;
      pages += 1;
    } while (next && pages < 10);
    expect(new Set(ids).size).toBe(7);
    expect(pages).toBe(3);
  });

  it('the scaffold types both lists by the item of their entries, named as the document names it, never by the page', async () => {
    const dir = await scaffoldFromOpenApi('box-like', await boxLikeFile(), ['get_folders_id_items', 'get_webhooks']);
    expect(await entityNames(dir)).toEqual(['Item']);
    for (const action of ['folders_id_items.get.ts', 'webhooks.get.ts'])
      expect(await readFile(join(dir, 'src', 'actions', action), 'utf8')).toContain('entity: Item,');
  });
});
