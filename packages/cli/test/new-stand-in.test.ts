import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { runCli } from '../src/index.js';
import { bufferIo } from './support.js';

/**
 * The stand-in's document a scaffold writes: only the chosen operations and what they reference,
 * as written in the provider's document (not a copy of all of it), in the file the README names.
 */

const schema = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const ok = (answer: unknown) => ({ '200': { description: 'ok', content: { 'application/json': { schema: answer } } } });

const PROVIDER = {
  openapi: '3.0.3',
  info: { title: 'Provider', version: '7' },
  servers: [{ url: 'https://api.provider.example/2.0' }],
  security: [{ OAuth2Security: [] }],
  tags: [{ name: 'Files' }, { name: 'Users' }],
  paths: {
    '/files/{file_id}': {
      parameters: [{ $ref: '#/components/parameters/FileId' }],
      get: { operationId: 'get_files_id', tags: ['Files'], responses: ok(schema('File')) },
      delete: { operationId: 'delete_files_id', tags: ['Files'], responses: { '204': { description: 'gone' } } },
    },
    '/users': { get: { operationId: 'get_users', tags: ['Users'], responses: ok(schema('Users')) } },
  },
  components: {
    parameters: { FileId: { name: 'file_id', in: 'path', required: true, schema: { type: 'string' } } },
    schemas: {
      File: {
        type: 'object',
        properties: { id: { type: 'string' }, owned_by: schema('User'), parent: schema('File') },
        example: { $ref: '#/components/schemas/Users' },
      },
      User: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' } } },
      Users: { type: 'object', properties: { entries: { type: 'array', items: schema('User') } } },
    },
    securitySchemes: {
      OAuth2Security: {
        type: 'oauth2',
        flows: {
          authorizationCode: {
            authorizationUrl: 'https://account.provider.example/authorize',
            tokenUrl: 'https://api.provider.example/oauth2/token',
            scopes: {},
          },
        },
      },
    },
  },
};

async function scaffold(text: string, file: string) {
  const cwd = await mkdtemp(join(tmpdir(), 'plugboard-new-stand-in-'));
  await writeFile(join(cwd, file), text);
  const created = bufferIo();
  const argv = ['new', 'provider', '--from-openapi', file, '--operations', 'get_files_id'];
  expect(await runCli(argv, { ...created.io, cwd }), created.stderr()).toBe(0);
  // What to do next names the file written, as the README does.
  const standIn = file.endsWith('.json') ? 'openapi.json' : 'openapi.yaml';
  expect(created.stdout()).toContain(`  npx plugboard mock ${standIn} --port 4010 `);
  return join(cwd, 'provider');
}

/** The provider's document with only get_files_id and what it references. */
const TRIMMED = {
  openapi: PROVIDER.openapi,
  info: PROVIDER.info,
  servers: PROVIDER.servers,
  security: PROVIDER.security,
  tags: [{ name: 'Files' }],
  paths: {
    '/files/{file_id}': {
      parameters: PROVIDER.paths['/files/{file_id}'].parameters,
      get: PROVIDER.paths['/files/{file_id}'].get,
    },
  },
  components: {
    parameters: PROVIDER.components.parameters,
    schemas: { File: PROVIDER.components.schemas.File, User: PROVIDER.components.schemas.User },
    securitySchemes: PROVIDER.components.securitySchemes,
  },
};

describe("the scaffold's stand-in document", () => {
  it('keeps of a JSON document the chosen operations and what they reference, as written, and its README names openapi.json', async () => {
    const dir = await scaffold(JSON.stringify(PROVIDER, null, 2), 'provider.json');
    const written = await readFile(join(dir, 'openapi.json'), 'utf8');
    expect(written).toBe(`${JSON.stringify(TRIMMED, null, 2)}\n`);
    const readme = await readFile(join(dir, 'README.md'), 'utf8');
    expect(readme).toContain('`openapi.json` describes the API');
    expect(readme).toContain('npx plugboard mock openapi.json --port 4010');
    expect(readme).not.toContain('openapi.yaml');
  });

  it('keeps the same of a YAML document, written as YAML, and its README names openapi.yaml', async () => {
    const yaml = (await import('yaml')).stringify(PROVIDER);
    const dir = await scaffold(yaml, 'provider.yaml');
    expect(parseYaml(await readFile(join(dir, 'openapi.yaml'), 'utf8'))).toEqual(TRIMMED);
    expect(await readFile(join(dir, 'README.md'), 'utf8')).toContain('npx plugboard mock openapi.yaml --port 4010');
  });
});
