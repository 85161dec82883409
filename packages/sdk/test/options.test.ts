import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createExecutor, createHostTransport, manualClock, type OptionsRequest, prepareOptions } from '../src/host.js';
import { bearerToken, type ConnectorDefinition, defineAction, defineConnector, DefinitionError } from '../src/index.js';
import { useHarness } from './support/harness.js';
import { json } from './support/server.js';

const h = useHarness();
const TOKEN = 'options-token-5b1e9c7a3d2f8e46';
const clock = manualClock(Date.parse('2026-11-26T06:00:00Z'));
const transport = createHostTransport({ clock });
afterAll(() => transport.close());

const Folder = z.object({ id: z.string() }).meta({ id: 'Folder' });

const foldersMove = defineAction({
  key: 'folders.move',
  label: 'Move a folder',
  direction: 'destination',
  effect: { writes: true, idempotent: true, destructive: true },
  entity: Folder,
  input: z.object({ folder_id: z.string().min(1), parent_id: z.string().optional(), depth: z.number().default(1) }),
  budget: 'folders',
  options: {
    folder_id: {
      from: 'the drive folders',
      searchable: true,
      async list(ctx, { search, cursor }) {
        const page = await ctx.http.get<{ data: Array<{ id: unknown; name: string }>; next?: string }>('/folders', {
          query: { name: search, cursor },
        });
        return {
          items: page.data.map((folder) => ({ value: folder.id as string, label: folder.name })),
          ...(page.next ? { nextCursor: page.next } : {}),
        };
      },
    },
    parent_id: {
      from: 'the top folders',
      async list(ctx) {
        const page = await ctx.http.get<{ data: Array<{ id: string; name: string }> }>('/folders');
        return { items: page.data.map((folder) => ({ value: folder.id, label: folder.name })) };
      },
    },
  },
  async write(_ctx, input) {
    return { id: input.folder_id };
  },
});

const base: Omit<ConnectorDefinition, 'actions'> = {
  key: 'drive',
  name: 'Drive',
  version: '1.0.0',
  vendor: null,
  category: 'developer',
  status: 'beta',
  summary: 'Folders.',
  auth: bearerToken(),
};

const drive = defineConnector({
  ...base,
  rateLimits: { folders: { limit: 1, per: 'minute' } },
  actions: [foldersMove],
});

function executorFor(baseUrl: string) {
  return createExecutor({
    connectors: [drive],
    resolveConnection: (id) => ({ id, baseUrl }),
    resolveCredential: () => TOKEN,
    transport,
    clock,
    log: () => undefined,
  });
}

/** Each test its own connection: the folders budget (one request a minute) is per connection. */
let connections = 0;
function request(field: string, more: Partial<OptionsRequest> = {}): OptionsRequest {
  connections += 1;
  return { connectorKey: 'drive', action: 'folders.move', field, connectionId: `conn_${connections}`, ...more };
}

describe('listOptions', () => {
  it('lists one page through the pipeline, the search and cursor sent to the provider', async () => {
    const server = await h.start((req, res) =>
      req.headers.authorization === `Bearer ${TOKEN}`
        ? json(res, 200, { data: [{ id: 'f_2', name: 'Clients 2' }], next: 'c3' })
        : json(res, 401, {}),
    );
    const page = await executorFor(server.url).listOptions(request('folder_id', { search: 'Clients', cursor: 'c2' }));
    expect(page).toEqual({ items: [{ value: 'f_2', label: 'Clients 2' }], nextCursor: 'c3' });
    expect(server.requests.map((seen) => `${seen.path}?${seen.query}`)).toEqual(['/folders?name=Clients&cursor=c2']);
  });

  it('keeps the items whose label holds the search when the provider cannot search', async () => {
    const server = await h.start((req, res) =>
      json(res, 200, {
        data: [
          { id: 'f_1', name: 'Archive' },
          { id: 'f_2', name: 'Clients' },
          { id: 'f_3', name: 'old clients' },
        ],
      }),
    );
    const page = await executorFor(server.url).listOptions(request('parent_id', { search: 'CLIENT' }));
    expect(page.items.map((item) => item.value)).toEqual(['f_2', 'f_3']);
    expect(server.requests[0]?.query.has('name')).toBe(false);
  });

  it('redacts a credential the provider echoes in a label', async () => {
    const server = await h.start((req, res) =>
      json(res, 200, { data: [{ id: 'f_1', name: `shared with ${String(req.headers.authorization)}` }] }),
    );
    const page = await executorFor(server.url).listOptions(request('folder_id'));
    expect(JSON.stringify(page)).not.toContain(TOKEN);
    expect(page.items[0]?.label).toContain('shared with');
  });

  it('refuses a bad query, a field without options and an unknown action before sending anything', async () => {
    const server = await h.start((req, res) => json(res, 200, { data: [] }));
    const executor = executorFor(server.url);
    await expect(executor.listOptions(request('folder_id', { search: 'x'.repeat(201) }))).rejects.toMatchObject({
      code: 'invalid_input',
      issues: [expect.objectContaining({ path: 'search' })],
    });
    await expect(executor.listOptions(request('depth'))).rejects.toMatchObject({
      code: 'unknown_action',
      message: expect.stringContaining("no options for input field 'depth'; fields with options: folder_id, parent_id"),
    });
    await expect(executor.listOptions({ ...request('folder_id'), action: 'folders.nope' })).rejects.toMatchObject({
      code: 'unknown_action',
    });
    expect(server.requests).toHaveLength(0);
  });

  it("draws on the action's budget and waits out no long rate limit", async () => {
    const server = await h.start((req, res) => json(res, 200, { data: [] }));
    const executor = executorFor(server.url);
    const once = request('folder_id');
    await executor.listOptions(once);
    // One request a minute: the next one may go in 60 s, longer than a listing waits.
    await expect(executor.listOptions(once)).rejects.toMatchObject({ code: 'rate_limited' });
    expect(server.requests).toHaveLength(1);
  });

  it('connects under the network policy of the environment', async () => {
    const server = await h.start((req, res) => json(res, 200, { data: [] }));
    await expect(
      executorFor(server.url).listOptions(request('folder_id', { environment: 'production' })),
    ).rejects.toMatchObject({ code: 'address_refused' });
    expect(server.requests).toHaveLength(0);
  });

  it("waits less than the action: a 10 s request timeout at most, no rate-limit wait over 5 s, the action's budget", () => {
    const connection = { baseUrl: 'http://127.0.0.1:9' };
    expect(prepareOptions(drive, 'folders.move', 'folder_id', { connection }).action).toMatchObject({
      effect: 'read',
      budget: 'folders',
      timeoutMs: 10_000,
      maxRetryAfterSeconds: 5,
    });
    const quick = defineConnector({
      ...base,
      rateLimits: { folders: { limit: 1, per: 'minute' } },
      actions: [defineAction({ ...foldersMove, timeoutMs: 2_000, maxRetryAfterSeconds: 1 })],
    });
    expect(prepareOptions(quick, 'folders.move', 'folder_id', { connection }).action).toMatchObject({
      timeoutMs: 2_000,
      maxRetryAfterSeconds: 1,
    });
  });

  it("checks each value against the field's schema", async () => {
    const server = await h.start((req, res) => json(res, 200, { data: [{ id: 7, name: 'Seven' }] }));
    await expect(executorFor(server.url).listOptions(request('folder_id'))).rejects.toMatchObject({
      code: 'schema_mismatch',
    });
  });
});

describe('options are checked when the connector is defined', () => {
  const moved = (options: unknown, input: z.ZodType = z.object({ flag: z.boolean(), kind: z.enum(['a', 'b']) })) =>
    defineAction({
      key: 'folders.move',
      label: 'Move',
      direction: 'destination',
      entity: Folder,
      input,
      options: options as never,
    });

  it('refuses options on a field that is not a string or number, naming connector, action and field', () => {
    const list = async () => ({ items: [] });
    expect(() => defineConnector({ ...base, actions: [moved({ flag: { from: 'flags', list } })] })).toThrow(
      new DefinitionError([
        "connector 'drive': action 'folders.move': options of input field 'flag': the field is a boolean; options fit a string or number field only",
      ]),
    );
    expect(() => defineConnector({ ...base, actions: [moved({ kind: { from: 'kinds', list } })] })).not.toThrow();
  });

  it('refuses options of a field the input does not have, without from or list', () => {
    expect(() => defineConnector({ ...base, actions: [moved({ missing: { from: '' } })] })).toThrow(
      new DefinitionError([
        "connector 'drive': action 'folders.move': options of input field 'missing': the input has no such field",
        "connector 'drive': action 'folders.move': options of input field 'missing': from must say where the options come from",
        "connector 'drive': action 'folders.move': options of input field 'missing': list must be a function",
      ]),
    );
  });
});
