import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { startMockServer, type MockServer } from '../src/mock/server.js';
import { loadOpenApiDocument, type Schema } from '../src/openapi-document.js';
import { bufferIo } from './support.js';

/**
 * What real providers publish and the kit must take as it is: examples holding `$id` keys (data,
 * never schemas), properties named `$id`, `$ref` or `example`, `nullable` without `type`,
 * discriminated `oneOf`, recursive schemas, `readOnly`/`writeOnly`, vendor extensions; and what
 * is broken (a `$ref` to nowhere, a cycle of references, text that is not JSON or YAML) refused
 * in one message naming where, with exit 2 and nothing written.
 */

async function documentFile(document: unknown, name = 'openapi.json'): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'plugboard-document-')), name);
  await writeFile(file, typeof document === 'string' ? document : JSON.stringify(document));
  return file;
}

const info = { title: 'Real shapes', version: '1' };
const page = (items: unknown) => ({
  '200': {
    description: 'a page',
    content: { 'application/json': { schema: { type: 'object', properties: { entries: { type: 'array', items } } } } },
  },
});

/** A document with every shape a real provider's may hold, each in a place an operation uses. */
const REAL_SHAPES = {
  openapi: '3.0.3',
  info,
  servers: [{ url: 'https://api.shapes.example/2.0' }],
  'x-vendor': { $id: 'not-a-schema', $ref: '#/nowhere' },
  paths: {
    '/files': {
      get: {
        operationId: 'files_list',
        parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', maximum: 100 }, example: { $id: 'x' } }],
        responses: {
          ...page({ $ref: '#/components/schemas/File' }),
          default: { description: 'an error', content: { 'application/json': { schema: { type: 'object' } } } },
        },
      },
      post: {
        operationId: 'files_create',
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/File' } } } },
        responses: { '201': { description: 'made', content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    },
    '/metadata': {
      get: {
        operationId: 'metadata_get',
        responses: {
          '200': {
            description: 'metadata',
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/Metadata' },
                examples: {
                  one: { value: { $id: '01234500-12f1-1234-aa12-b1d234cb567e', $ref: 'data, not a reference' } },
                  two: { value: { $id: '01234500-12f1-1234-aa12-b1d234cb567e' } },
                },
              },
            },
          },
        },
      },
    },
  },
  components: {
    schemas: {
      File: {
        type: 'object',
        'x-box-resource-id': 'file',
        properties: {
          id: { type: 'string', readOnly: true },
          $id: { type: 'string', description: 'a property named $id' },
          $ref: { type: 'string', description: 'a property named $ref' },
          example: { $ref: '#/components/schemas/Metadata' },
          parent: { allOf: [{ $ref: '#/components/schemas/File' }], nullable: true },
          secret: { type: 'string', writeOnly: true },
          modified_by: { nullable: true, description: 'nullable without a type' },
          owner: {
            oneOf: [{ $ref: '#/components/schemas/User' }, { $ref: '#/components/schemas/Group' }],
            discriminator: { propertyName: 'type', mapping: { user: '#/components/schemas/User' } },
          },
        },
        example: { $id: 'one', parent: { $id: 'one' } },
      },
      Metadata: {
        type: 'object',
        additionalProperties: { type: 'object', example: { marketingCollateral: { $id: 'same' } } },
        example: { marketingCollateral: { $id: 'same' } },
      },
      User: { type: 'object', properties: { type: { type: 'string', enum: ['user'] }, name: { type: 'string' } } },
      Group: { type: 'object', properties: { type: { type: 'string', enum: ['group'] }, name: { type: 'string' } } },
    },
  },
};

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('an OpenAPI document as real providers publish it', () => {
  it('reads examples as data and properties named $id, $ref or example as properties, references resolved', async () => {
    const document = await loadOpenApiDocument(await documentFile(REAL_SHAPES));
    const file = document.components!.schemas!.File as Schema & { properties: Record<string, Schema> };
    expect(Object.keys(file.properties)).toEqual([
      'id',
      '$id',
      '$ref',
      'example',
      'parent',
      'secret',
      'modified_by',
      'owner',
    ]);
    expect(file.properties.example).toBe(document.components!.schemas!.Metadata);
    // A recursive schema is a cycle of objects; an example's `$ref` is data, left as written.
    expect((file.properties.parent!.allOf as Schema[])[0]).toBe(file);
    const media = document.paths['/metadata']!.get!.responses!['200']!.content!['application/json']!;
    expect(media.examples!.one!.value).toEqual({
      $id: '01234500-12f1-1234-aa12-b1d234cb567e',
      $ref: 'data, not a reference',
    });
  });

  it('serves every operation of it from plugboard mock, nullable without a type included', async () => {
    server = await startMockServer(await loadOpenApiDocument(await documentFile(REAL_SHAPES)), { records: 3 });
    expect(server.operations).toBe(3);
    const answer = await fetch(`${server.url}/files?limit=2`);
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { entries: Array<Record<string, unknown>> };
    expect(body.entries.length).toBeGreaterThan(0);
    expect((await fetch(`${server.url}/metadata`)).status).toBe(200);
    // A body is checked against the schema: a nullable field without a type takes anything, null included.
    const post = (body: unknown) =>
      fetch(`${server!.url}/files`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post({ id: 'f1', modified_by: null, $id: 'x' })).status).toBe(201);
    expect((await post({ id: 7 })).status).toBe(400);
  });

  it('scaffolds from it with plugboard new', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'plugboard-document-new-'));
    const created = bufferIo();
    const argv = ['new', 'shapes', '--from-openapi', await documentFile(REAL_SHAPES), '--operations', 'files_list'];
    expect(await runCli(argv, { ...created.io, cwd }), created.stderr()).toBe(0);
  });
});

describe('a very large document', () => {
  it('resolves long chains of references, each once: 5,000 schemas each holding the next, 5,000 references to references', async () => {
    const count = 5_000;
    const schemas: Record<string, unknown> = {};
    for (let index = 0; index < count; index += 1) {
      schemas[`S${index}`] = {
        type: 'object',
        properties: { next: { $ref: `#/components/schemas/S${(index + 1) % count}` } },
      };
      schemas[`R${index}`] = { $ref: `#/components/schemas/${index + 1 < count ? `R${index + 1}` : 'S0'}` };
    }
    const document = await loadOpenApiDocument(
      await documentFile({
        openapi: '3.0.3',
        info,
        paths: {
          '/items': { get: { operationId: 'items_list', responses: page({ $ref: '#/components/schemas/R0' }) } },
        },
        components: { schemas },
      }),
    );
    const resolved = document.components!.schemas!;
    expect(resolved.R0).toBe(resolved.S0);
    expect((resolved[`S${count - 1}`]!.properties as Record<string, Schema>).next).toBe(resolved.S0);
  });
});

describe('a reference outside the document', () => {
  const OUTSIDE = {
    openapi: '3.0.3',
    info,
    paths: {
      '/files': { get: { operationId: 'files_list', responses: page({ type: 'object' }) } },
      '/shared': { get: { operationId: 'shared_get', responses: page({ $ref: 'shared.yaml#/File' }) } },
    },
  };
  const where = '#/paths/~1shared/get/responses/200/content/application~1json/schema/properties/entries/items';

  it('fails only what needs it: plugboard new names it by pointer when chosen, and scaffolds the others', async () => {
    const file = await documentFile(OUTSIDE);
    const cwd = await mkdtemp(join(tmpdir(), 'plugboard-document-outside-'));
    const chosen = bufferIo({}, true);
    expect(
      await runCli(['new', 'outside', '--from-openapi', file, '--operations', 'shared_get'], { ...chosen.io, cwd }),
    ).toBe(2);
    expect(chosen.stderr()).toContain(
      `plugboard: --operations: shared_get needs what cannot be used: ${where}: $ref 'shared.yaml#/File' points outside the document; put what it names into the document`,
    );
    expect(await readdir(cwd)).toEqual([]);
    const other = bufferIo();
    expect(
      await runCli(['new', 'outside', '--from-openapi', file, '--operations', 'files_list'], { ...other.io, cwd }),
    ).toBe(0);
  });

  it('plugboard mock serves the others and says which it does not serve, and why', async () => {
    server = await startMockServer(await loadOpenApiDocument(await documentFile(OUTSIDE)));
    expect(server.operations).toBe(1);
    expect(server.skipped).toEqual([
      {
        method: 'GET',
        path: '/shared',
        reason: expect.stringContaining(`${where}: $ref 'shared.yaml#/File' points outside`),
      },
    ]);
    expect((await fetch(`${server.url}/files`)).status).toBe(200);
  });

  it('plugboard mock prints the operation it does not serve, with the pointer and what to do', async () => {
    const served = bufferIo();
    const controller = new AbortController();
    const running = runCli(['mock', await documentFile(OUTSIDE), '--port', '0'], served.io, {
      signal: controller.signal,
    });
    await expect.poll(() => served.stdout()).toContain('not served');
    controller.abort();
    expect(await running).toBe(0);
    expect(served.stdout()).toContain(
      `  GET /shared: not served; ${where}: $ref 'shared.yaml#/File' points outside the document; put what it names into the document (as a component) and refer to that\n`,
    );
  });
});

describe('a broken document', () => {
  /** `plugboard new` on the document, at a terminal: the exit code, what it said, and what it wrote. */
  async function refused(text: string, name = 'openapi.json') {
    const cwd = await mkdtemp(join(tmpdir(), 'plugboard-document-broken-'));
    const created = bufferIo({}, true);
    const argv = ['new', 'broken', '--from-openapi', await documentFile(text, name), '--operations', 'items_list'];
    const code = await runCli(argv, { ...created.io, cwd });
    return { code, said: created.stderr(), written: await readdir(cwd) };
  }
  const items = (schema: unknown, schemas: Record<string, unknown> = {}) =>
    JSON.stringify({
      openapi: '3.1.0',
      info,
      paths: { '/items': { get: { operationId: 'items_list', responses: page(schema) } } },
      components: { schemas },
    });

  it('names a $ref to nowhere by where it is, exit 2, nothing written', async () => {
    const { code, said, written } = await refused(items({ $ref: '#/components/schemas/Gone' }));
    expect(code).toBe(2);
    expect(said).toMatch(
      /^plugboard: \S+openapi\.json: #\/paths\/~1items\/get\/responses\/200\/content\/application~1json\/schema\/properties\/entries\/items: \$ref '#\/components\/schemas\/Gone' points to nothing in the document;/,
    );
    expect(said).not.toMatch(/statusCode/);
    expect(said.trim().split('\n')).toHaveLength(1);
    expect(written).toEqual([]);
  });

  it('names a cycle of references that never reaches a schema, exit 2, nothing written', async () => {
    const { code, said, written } = await refused(
      items(
        { $ref: '#/components/schemas/A' },
        { A: { $ref: '#/components/schemas/B' }, B: { $ref: '#/components/schemas/A' } },
      ),
    );
    expect(code).toBe(2);
    expect(said).toMatch(
      /#\/components\/schemas\/A: \$ref '#\/components\/schemas\/B' goes round a cycle of references/,
    );
    expect(written).toEqual([]);
  });

  it('names where text is not JSON or YAML, exit 2, nothing written', async () => {
    const json = await refused('{"openapi": "3.0.3",\n  "info": }');
    expect(json.code).toBe(2);
    expect(json.said).toMatch(/openapi\.json: not JSON: .*"info": }/);
    expect(json.written).toEqual([]);
    const yaml = await refused('openapi: 3.0.3\ninfo: [unclosed\n', 'openapi.yaml');
    expect(yaml.code).toBe(2);
    expect(yaml.said).toMatch(/openapi\.yaml: not YAML: .*at line \d+, column \d+;/);
    expect(yaml.written).toEqual([]);
  });
});
