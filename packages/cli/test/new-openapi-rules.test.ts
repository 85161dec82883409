import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { generateActions, type OperationChoice } from '../src/openapi-actions.js';
import { loadOpenApiDocument } from '../src/openapi-document.js';
import { bufferIo } from './support.js';

/** The rules `new --from-openapi` writes actions by, each on a small document of its own. */

const ok = (schema: unknown) => ({ '200': { description: 'OK', content: { 'application/json': { schema } } } });
const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'plugboard-openapi-rules-'));
});
afterAll(() => rm(folder, { recursive: true, force: true }));

let documents = 0;
async function generate(paths: Record<string, unknown>, choices: Array<string | OperationChoice>, extra = {}) {
  documents += 1;
  const file = join(folder, `document-${documents}.json`);
  await writeFile(file, JSON.stringify({ openapi: '3.1.0', info: { title: 'Rules', version: '1' }, paths, ...extra }));
  const chosen = choices.map((choice) => (typeof choice === 'string' ? { operation: choice } : choice));
  return generateActions(await loadOpenApiDocument(file), chosen);
}

const Message = { type: 'object', properties: { id: { type: 'string' }, text: { type: 'string' } }, required: ['id'] };
const MESSAGES = {
  '/messages': {
    get: { operationId: 'listMessages', responses: ok({ type: 'array', items: Message }) },
    post: { operationId: 'sendMessage', requestBody: json(Message), responses: ok(Message) },
  },
  '/messages/{id}': {
    parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
    get: { operationId: 'getMessage', responses: ok(Message) },
  },
  '/threads': { get: { responses: ok({ type: 'array', items: Message }) } },
  '/search': { get: { operationId: 'search', responses: ok({ type: 'array', items: Message }) } },
};

describe('action keys', () => {
  it('come from the operationId, verb first; from the path and method where there is none', async () => {
    const { actions } = await generate(MESSAGES, [
      'listMessages',
      'sendMessage',
      'getMessage',
      'GET /threads',
      'search',
    ]);
    expect(actions.map(({ key, file }) => [key, file])).toEqual([
      ['messages.list', 'src/actions/messages.list.ts'],
      ['message.send', 'src/actions/message.send.ts'],
      ['message.get', 'src/actions/message.get.ts'],
      ['threads.list', 'src/actions/threads.list.ts'],
      ['search.search', 'src/actions/search.search.ts'],
    ]);
  });

  it('of an operationId naming its resource before a slash (repos/list-for-org) are that resource, then the verb phrase', async () => {
    const { actions } = await generate(
      {
        '/orgs/{org}/repos': {
          get: { operationId: 'repos/list-for-org', responses: ok({ type: 'array', items: Message }) },
        },
        '/repos/{repo}': { get: { operationId: 'repos/get', responses: ok(Message) } },
        '/repos/{repo}/issues': {
          get: { operationId: 'issues/list-for-repo', responses: ok({ type: 'array', items: Message }) },
        },
      },
      ['repos/list-for-org', 'repos/get', 'issues/list-for-repo'],
    );
    expect(actions.map(({ key }) => key)).toEqual(['repos.list_for_org', 'repos.get', 'issues.list_for_repo']);
  });

  it("are the author's where --operations names them: operationId=resource.verb", async () => {
    const { actions } = await generate(MESSAGES, [
      { operation: 'sendMessage', key: 'messages.send' },
      { operation: 'getMessage', key: 'messages.get' },
    ]);
    expect(actions.map(({ key, name }) => [key, name])).toEqual([
      ['messages.send', 'messagesSend'],
      ['messages.get', 'messagesGet'],
    ]);
    expect(actions[0]!.source).toContain('key: "messages.send",');
  });

  it('refuse a key that is not resource.verb, and two operations on one key, naming them', async () => {
    await expect(generate(MESSAGES, [{ operation: 'sendMessage', key: 'Send' }])).rejects.toThrow(
      /sendMessage=Send: a key looks like resource\.verb/,
    );
    await expect(
      generate(MESSAGES, ['listMessages', { operation: 'sendMessage', key: 'messages.list' }]),
    ).rejects.toThrow(/listMessages and sendMessage would both be the action messages\.list/);
  });

  it('refuse an operation the document lacks with exit 2, the nearest named, before writing anything', async () => {
    const cwd = await mkdtemp(join(folder, 'cli-'));
    const file = join(cwd, '..', 'messages.json');
    await writeFile(file, JSON.stringify({ openapi: '3.1.0', info: { title: 'M', version: '1' }, paths: MESSAGES }));
    const refused = bufferIo();
    const argv = ['new', 'chat', '--from-openapi', file, '--operations', 'listMessage=messages.list,sendMessage'];
    expect(await runCli(argv, { ...refused.io, cwd })).toBe(2);
    expect(refused.stderr()).toMatch(
      /--operations: no operation 'listMessage' \(did you mean listMessages\?\) in the document; it has getMessage, listMessages, search, sendMessage/,
    );
    expect(await readdir(cwd)).toEqual([]);
  });
});

/** `export const Name = <zod>` of each data type in src/entities.ts. */
const entitiesOf = (source: string) =>
  Object.fromEntries(
    [...source.matchAll(/^export const (\w+) = (.*)\.meta\(\{ id: "(\w+)" \}\);$/gm)].map(([, name, zod, id]) => {
      expect(id).toBe(name);
      return [name, zod];
    }),
  );

const Team = {
  type: 'object',
  properties: { id: { type: 'string' }, name: { type: 'string' }, size: { type: 'integer' } },
  required: ['id', 'name'],
};
const TEAMS = {
  '/teams': {
    get: {
      operationId: 'listTeams',
      responses: ok({ $ref: '#/components/schemas/TeamListResponse' }),
    },
    post: {
      operationId: 'createTeam',
      requestBody: json(Team),
      responses: ok({ type: 'object', properties: { data: { $ref: '#/components/schemas/Team' } } }),
    },
  },
  '/teams/{id}': {
    parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
    get: { operationId: 'getTeam', responses: ok({ $ref: '#/components/schemas/TeamResponse' }) },
  },
  '/members': {
    get: {
      operationId: 'listMembers',
      responses: ok({
        type: 'object',
        properties: {
          members: {
            type: 'array',
            items: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
          },
          next: { type: 'string' },
        },
      }),
    },
  },
};
const COMPONENTS = {
  components: {
    schemas: {
      Team,
      TeamListResponse: {
        type: 'object',
        properties: {
          data: { type: 'array', items: { $ref: '#/components/schemas/Team' } },
          total: { type: 'integer' },
        },
      },
      TeamResponse: {
        type: 'object',
        properties: { data: { $ref: '#/components/schemas/Team' }, meta: { type: 'object' } },
      },
    },
  },
};

describe('data types', () => {
  it('are the records, unwrapped from their envelopes, named from the schema, once each, their required fields required', async () => {
    const generated = await generate(TEAMS, ['listTeams', 'getTeam', 'createTeam', 'listMembers'], COMPONENTS);
    expect(entitiesOf(generated.entities)).toEqual({
      Team: 'z.looseObject({ id: z.string(), name: z.string(), size: z.number().int().optional() })',
      Member: 'z.looseObject({ id: z.number().int() })',
    });
    const [list, get, create] = generated.actions;
    expect(list!.source).toContain('entity: Team,');
    expect(get!.source).toContain('entity: Team,');
    expect(get!.source).toContain('const Answer = z.looseObject({ data: Team });');
    expect(get!.source).toContain('yield { records: [answer.data["data"]] };');
    expect(create!.source).toContain('entity: Team,');
    expect(create!.source).toContain('return (await ctx.http.request<z.input<typeof Answer>>(');
    expect(create!.source).toMatch(/\)\)\.data\["data"\];$/m);
  });

  it('a component whose name is no identifier names a type that is one', async () => {
    const paths = {
      '/codes': { get: { operationId: 'listCodes', responses: ok({ $ref: '#/components/schemas/2fa_code' }) } },
    };
    const components = {
      components: { schemas: { '2fa_code': { type: 'object', properties: { id: { type: 'string' } } } } },
    };
    expect(Object.keys(entitiesOf((await generate(paths, ['listCodes'], components)).entities))).toEqual([
      'Type2faCode',
    ]);
  });

  it('two different records of one name are told apart, a single record read by id as its Detail', async () => {
    const detail = { ...Team, properties: { ...Team.properties, created_at: { type: 'string' } } };
    const paths = {
      '/teams': { get: { operationId: 'listTeams', responses: ok({ type: 'array', items: Team }) } },
      '/teams/{id}': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        get: { operationId: 'getTeams', responses: ok(detail) },
      },
    };
    expect(Object.keys(entitiesOf((await generate(paths, ['listTeams', 'getTeams'])).entities))).toEqual([
      'Team',
      'TeamDetail',
    ]);
  });
});

describe('destinations', () => {
  const item = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
  const id = [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }];
  const post = (operationId: string) => ({ post: { operationId, responses: ok(item) } });
  const WRITES = {
    '/items': post('createItem'),
    '/items/{id}': {
      parameters: id,
      put: { operationId: 'replaceItem', responses: ok(item) },
      patch: { operationId: 'updateItem', responses: ok(item) },
      delete: { operationId: 'deleteItem', responses: ok(item) },
    },
    '/items/{id}/cancel': { parameters: id, ...post('cancelItem') },
    '/items/{id}/rename': { parameters: id, ...post('renameItem') },
    '/messages': post('sendMessage'),
  };

  it('are marked by the effect of their method and operation, the billable flag left to decide', async () => {
    const operations = [
      'createItem',
      'replaceItem',
      'updateItem',
      'deleteItem',
      'cancelItem',
      'renameItem',
      'sendMessage',
    ];
    const { actions } = await generate(WRITES, operations);
    expect(
      actions.map(({ key, source }) => [
        key,
        source.match(/^ {2}effect: (.*),$/m)?.[1],
        source.match(/^ {2}\/\/ (\w+)/m)?.[1],
      ]),
    ).toEqual([
      ['item.create', '{ writes: true, idempotent: false, destructive: false }', 'Creates'],
      ['item.replace', '{ writes: true, idempotent: true, destructive: true }', 'Replaces'],
      ['item.update', '{ writes: true, idempotent: false, destructive: true }', 'Updates'],
      ['item.delete', '{ writes: true, idempotent: true, destructive: true }', 'Deletes'],
      ['item.cancel', '{ writes: true, idempotent: false, destructive: true }', 'Deletes'],
      ['item.rename', '{ writes: true, idempotent: false, destructive: true }', 'Updates'],
      ['message.send', '{ writes: true, idempotent: false, destructive: false }', 'Creates'],
    ]);
    for (const { source } of actions)
      expect(source).toContain(
        "  // TODO billable: add `billable: true` if this call spends the customer's money or credits (never retried,",
      );
  });
});

describe('the credential', () => {
  const scaffoldIndex = async (extra: Record<string, unknown>) => {
    const cwd = await mkdtemp(join(folder, 'auth-'));
    const file = join(cwd, 'messages.json');
    await writeFile(
      file,
      JSON.stringify({ openapi: '3.1.0', info: { title: 'M', version: '1' }, paths: MESSAGES, ...extra }),
    );
    const created = bufferIo();
    const argv = ['new', 'chat', '--from-openapi', file, '--operations', 'listMessages'];
    expect(await runCli(argv, { ...created.io, cwd }), created.stderr()).toBe(0);
    return readFile(join(cwd, 'chat', 'src', 'index.ts'), 'utf8');
  };

  it("is the API key the document's security requirement names, else a bearer token", async () => {
    const byQuery = await scaffoldIndex({
      security: [{ key: [] }],
      components: { securitySchemes: { key: { type: 'apiKey', in: 'query', name: 'api_key' } } },
    });
    expect(byQuery).toContain("import { apiKeyQuery, defineConnector } from '@plugboard/sdk';");
    expect(byQuery).toContain("auth: apiKeyQuery('api_key'),");
    expect(await scaffoldIndex({})).toContain('auth: bearerToken(),');
  });
});
