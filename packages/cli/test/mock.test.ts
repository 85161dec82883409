import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { manualClock } from '@plugboard/sdk/host';
import { Ajv } from 'ajv';
import { afterEach, describe, expect, it } from 'vitest';
import { type MockServer, startMockServer } from '../src/mock/server.js';
import { runCli } from '../src/index.js';
import { sampleOf } from '@plugboard/catalogue/sample';
import { loadOpenApiDocument, operationsOf, pointerTo, type Schema } from '../src/openapi-document.js';
import { bufferIo, PACK } from './support.js';

/**
 * `plugboard mock`: a stand-in served from an OpenAPI document, checked with real HTTP
 * requests on 127.0.0.1, with the Descript connector run through the CLI against the mock
 * of Descript's own published document (read where it lies beside the repository).
 */

const DESCRIPT = join(import.meta.dirname, '..', '..', '..', '..', 'shared', 'reference', 'descript-openapi-1.2.yaml');

const ITEMS = {
  openapi: '3.1.0',
  info: { title: 'Items', version: '1.0.0' },
  servers: [{ url: 'https://api.items.example/v2' }],
  security: [{ bearer: [] }],
  components: {
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer' },
      key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
    },
    schemas: {
      Item: {
        type: 'object',
        required: ['id', 'name', 'updated_at'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          name: { type: 'string', minLength: 1 },
          updated_at: { type: 'string', format: 'date-time' },
          tags: { type: 'array', items: { type: 'string', enum: ['red', 'blue'] } },
          parent: { $ref: '#/components/schemas/Item' },
        },
      },
    },
  },
  paths: {
    '/items': {
      get: {
        operationId: 'listItems',
        parameters: [
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100 } },
          { name: 'cursor', in: 'query', schema: { type: 'string' } },
        ],
        responses: {
          '200': {
            description: 'A page of items',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['data'],
                  properties: {
                    data: { type: 'array', items: { $ref: '#/components/schemas/Item' } },
                    next_cursor: { type: 'string' },
                  },
                },
              },
            },
          },
        },
      },
      post: {
        operationId: 'createItem',
        security: [{ key: [] }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['name'],
                properties: { name: { type: 'string', minLength: 1 }, size: { type: 'integer' } },
              },
            },
          },
        },
        responses: {
          '201': {
            description: 'Created',
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/Item' },
                example: { id: 'it_1', name: 'First', updated_at: '2026-01-02T03:04:05Z' },
              },
            },
          },
        },
      },
    },
    '/items/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      delete: { operationId: 'deleteItem', responses: { '204': { description: 'Gone' } } },
    },
  },
};

async function documentFile(document: unknown, name = 'items.json'): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'plugboard-mock-')), name);
  await writeFile(file, typeof document === 'string' ? document : JSON.stringify(document));
  return file;
}

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const bearer = { authorization: 'Bearer test-token' };

describe('startMockServer', () => {
  it("answers every operation under the first server's path, with the example or a sample that matches the schema", async () => {
    const document = await loadOpenApiDocument(await documentFile(ITEMS));
    server = await startMockServer(document);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v2$/);
    expect(server.operations).toBe(3);

    const list = await fetch(`${server.url}/items?limit=2`, { headers: bearer });
    expect(list.status).toBe(200);
    const page = (await list.json()) as { data: unknown[]; next_cursor?: string };
    // Item is recursive (parent): checked against the document as written.
    const ajv = new Ajv({ strict: false, validateFormats: false });
    ajv.addSchema(document.source, 'items');
    const pointer = pointerTo(document.source, [
      'paths',
      '/items',
      'get',
      'responses',
      '200',
      'content',
      'application/json',
      'schema',
    ]);
    expect(ajv.validate({ $ref: `items${pointer}` }, page), JSON.stringify(ajv.errors)).toBe(true);
    // A list that pages answers its first page of records made from the schema, and the cursor of the next.
    expect(page.data).toHaveLength(2);
    expect(page).toHaveProperty('next_cursor', expect.any(String));

    const created = await fetch(`${server.url}/items`, {
      method: 'POST',
      headers: { 'x-api-key': 'k', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'A' }),
    });
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ id: 'it_1', name: 'First', updated_at: '2026-01-02T03:04:05Z' });

    const deleted = await fetch(`${server.url}/items/it_1`, { method: 'DELETE', headers: bearer });
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
    expect(server.requests.map((request) => `${request.method} ${request.status} ${request.operationId}`)).toEqual([
      'GET 200 listItems',
      'POST 201 createItem',
      'DELETE 204 deleteItem',
    ]);
  });

  it('refuses what the document does not allow, naming the field', async () => {
    server = await startMockServer(await loadOpenApiDocument(await documentFile(ITEMS)));
    const refusal = async (path: string, init: RequestInit = {}) => {
      const answer = await fetch(`${server!.url}${path}`, init);
      return {
        status: answer.status,
        allow: answer.headers.get('allow'),
        ...((await answer.json()) as { error: string; message: string }),
      };
    };
    expect(await refusal('/items')).toMatchObject({ status: 401, error: 'unauthorized' });
    // The operation's own security wins over the document's: a bearer token is not its API key.
    expect(await refusal('/items', { method: 'POST', headers: bearer, body: '{}' })).toMatchObject({ status: 401 });
    expect(await refusal('/items?limit=many', { headers: bearer })).toMatchObject({
      status: 400,
      message: 'query.limit must be an integer',
    });
    expect(await refusal('/items?limit=500', { headers: bearer })).toMatchObject({
      status: 400,
      message: 'query.limit must be at most 100',
    });
    const post = (body: string) =>
      refusal('/items', { method: 'POST', headers: { 'x-api-key': 'k', 'content-type': 'application/json' }, body });
    expect(await post('')).toMatchObject({ status: 400, message: 'body is required' });
    expect(await post('{"size":1}')).toMatchObject({ status: 400, message: 'body.name is required' });
    expect(await post('{"name":"A","size":"big"}')).toMatchObject({
      status: 400,
      message: 'body.size must be integer',
    });
    expect(await post('{"name":')).toMatchObject({ status: 400, message: 'body is not JSON' });
    expect(await post(JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }))).toMatchObject({ status: 413 });
    expect(await refusal('/things', { headers: bearer })).toMatchObject({
      status: 404,
      message: 'no operation at /v2/things',
    });
    expect(await refusal('/elsewhere', { headers: bearer })).toMatchObject({ status: 404 });
    expect(await refusal('/items/a', { method: 'PUT', headers: bearer })).toMatchObject({
      status: 405,
      allow: 'DELETE',
    });
  });
});

describe("Descript's published document", () => {
  it("samples every success answer's schema into a value that schema accepts", async () => {
    const document = await loadOpenApiDocument(DESCRIPT);
    const ajv = new Ajv({ strict: false, validateFormats: false });
    let checked = 0;
    for (const { operation } of operationsOf(document)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const media = response.content?.['application/json'];
        if (!/^2/.test(status) || !media?.schema) continue;
        expect(
          ajv.validate(media.schema, sampleOf(media.schema as Schema)),
          `${operation.operationId} ${status}: ${JSON.stringify(ajv.errors)}`,
        ).toBe(true);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(10);
  });

  it('stands in for Descript: the connector runs status.get, and projects.list page by page then incrementally', async () => {
    server = await startMockServer(await loadOpenApiDocument(DESCRIPT), { grow: 4, clock: manualClock() });
    const state = await mkdtemp(join(tmpdir(), 'plugboard-mock-state-'));
    const status = bufferIo({ PLUGBOARD_CREDENTIAL: 'mock-token-1234' });
    expect(
      await runCli(['run', 'descript', 'status.get', '--base-url', server.url], status.io, { pack: PACK }),
      status.stderr(),
    ).toBe(0);
    expect(JSON.parse(status.stdout())).toMatchObject({ drive_id: expect.any(String) });
    const listed = async () => {
      const list = bufferIo({ PLUGBOARD_CREDENTIAL: 'mock-token-1234' });
      const argv = ['run', 'descript', 'projects.list', '--base-url', server!.url, '--state', state];
      expect(await runCli(argv, list.io, { pack: PACK }), list.stderr()).toBe(0);
      return list
        .stdout()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { id: string; updated_at: string });
    };
    // 250 projects in pages of 100; the second run asks from the checkpoint and reads the 4 added since.
    const first = await listed();
    expect(new Set(first.map((project) => project.id)).size).toBe(250);
    const second = await listed();
    expect(second).toHaveLength(4);
    expect(second.every((project) => project.updated_at > first.at(-1)!.updated_at)).toBe(true);
    expect(server.requests.map((request) => `${request.method} ${request.path} ${request.status}`)).toEqual([
      'GET /v1/status 200',
      'GET /v1/projects 200',
      'GET /v1/projects 200',
      'GET /v1/projects 200',
      'GET /v1/projects 200',
    ]);
  });
});

describe('plugboard mock', () => {
  it('refuses a document that is not OpenAPI 3, or a bad port, with exit 2 before listening', async () => {
    const notOpenApi = bufferIo();
    expect(await runCli(['mock', await documentFile('title: nothing\n', 'x.yaml')], notOpenApi.io)).toBe(2);
    expect(notOpenApi.stderr()).toMatch(/x\.yaml: not a valid OpenAPI document/);
    const swagger = bufferIo();
    expect(
      await runCli(
        ['mock', await documentFile({ swagger: '2.0', info: { title: 't', version: '1' }, paths: {} })],
        swagger.io,
      ),
    ).toBe(2);
    expect(swagger.stderr()).toMatch(/OpenAPI 2\.0 is not supported/);
    const missing = bufferIo();
    expect(await runCli(['mock', '/nonexistent/openapi.yaml'], missing.io)).toBe(2);
    expect(missing.stderr()).toMatch(/cannot read the OpenAPI document \(ENOENT\)/);
    const port = bufferIo();
    expect(await runCli(['mock', DESCRIPT, '--port', 'x'], port.io)).toBe(2);
    expect(port.stderr()).toMatch(/--port must be a port number/);
  });

  it('says at a terminal that a port is taken, with no hint beside the point', async () => {
    server = await startMockServer(await loadOpenApiDocument(await documentFile(ITEMS)));
    const port = new URL(server.url).port;
    const taken = bufferIo({}, true);
    expect(
      await runCli(['mock', DESCRIPT, '--port', port], { ...taken.io, stdout: { write: () => true, isTTY: true } }),
    ).toBe(2);
    expect(taken.stderr()).toBe(
      `plugboard: --port ${port}: the port is in use; pick another, or --port 0 for a free one\n`,
    );
  });

  it('refuses a port another program holds, naming the port and --port, exit 2, before serving', async () => {
    // Another program on the machine, as the one that once held the guide's 4010.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => console.log(s.address().port))",
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const port = String((await once(holder.stdout!, 'data'))[0]).trim();
      const taken = bufferIo();
      expect(await runCli(['mock', await documentFile(ITEMS), '--port', port], taken.io)).toBe(2);
      expect(taken.stdout()).toBe('');
      expect(JSON.parse(taken.stderr())).toMatchObject({
        code: 'invalid_input',
        message: `plugboard: arguments: --port ${port}: the port is in use; pick another, or --port 0 for a free one`,
      });
    } finally {
      holder.kill();
    }
  });

  it('serves until its signal ends it, printing where and each request', async () => {
    const io = bufferIo();
    const controller = new AbortController();
    const running = runCli(['mock', await documentFile(ITEMS), '--port', '0'], io.io, { signal: controller.signal });
    await expect.poll(() => io.stdout()).toMatch(/3 operations of .* at http:\/\/127\.0\.0\.1:\d+\/v2/);
    const url = /(http:\/\/127\.0\.0\.1:\d+\/v2)/.exec(io.stdout())![1]!;
    expect((await fetch(`${url}/items`, { headers: bearer })).status).toBe(200);
    controller.abort();
    expect(await running).toBe(0);
    expect(io.stderr()).toBe('GET /v2/items 200 listItems\n');
  });
});
