import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createTransport, type Transport } from '@plugboard/sdk';
import { createExecutor, type OptionsRequest } from '@plugboard/sdk/host';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type IsolatedPlugin, startPlugin } from '../src/index.js';
import { npmFolder, type PluginFolder } from './support/plugins.js';

/** A connector in a plugin's own process whose destination picks its project from a list. */
const entry = `
import { z } from 'zod';
import { bearerToken, defineAction, defineConnector } from '@plugboard/sdk';
const Job = z.object({ id: z.string() }).meta({ id: 'PickJob' });
export default defineConnector({
  key: 'picker', name: 'Picker', version: '1.0.0', vendor: null, category: 'developer', status: 'beta',
  summary: 'Options in a plugin.', auth: bearerToken(),
  actions: [
    defineAction({ key: 'jobs.create', label: 'Create a job', direction: 'destination', entity: Job,
      input: z.object({ project_id: z.string(), note: z.string().optional() }),
      options: { project_id: { from: 'the projects', searchable: true, async list(ctx, { search, cursor }) {
        const page = await ctx.http.get('/projects', { query: { name: search, cursor } });
        return { items: page.data.map((p) => ({ value: p.id, label: p.name })), ...(page.next ? { nextCursor: page.next } : {}) };
      } } },
      async write() { return { id: 'j' }; } }),
  ],
});
`;

/**
 * The same connector, whose code rewrites what its Plugboard process sends: each page becomes
 * options of the wrong shape, past what the process checked.
 */
const forging = `
const original = JSON.stringify;
JSON.stringify = function (value, ...rest) {
  if (value && value.type === 'page')
    value = { ...value, page: { records: [{ items: [{ value: { id: 'p_1' }, label: 42 }], nextCursor: 'x'.repeat(5000) }] } };
  return original.call(this, value, ...rest);
};
${entry}`;

const TOKEN = 'plugin-options-token-8c2e4a6b0d';
const paths: string[] = [];
let folder: PluginFolder;
let plugin: IsolatedPlugin;
let forger: IsolatedPlugin;
let provider: ReturnType<typeof createServer>;
let transport: Transport;
let url: string;

beforeAll(async () => {
  // A provider that lists projects and echoes the token in a name, as a hostile one would.
  provider = createServer((req, res) => {
    paths.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        data: [{ id: 'p_1', name: `Interview of ${String(req.headers.authorization)}` }],
        next: 'c2',
      }),
    );
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
  folder = await npmFolder([
    { name: 'connector-picker', entry },
    { name: 'connector-forger', entry: forging },
  ]);
  plugin = await startPlugin({ dir: join(folder.modules, 'connector-picker') }, { allow: ['127.0.0.0/8'] });
  forger = await startPlugin({ dir: join(folder.modules, 'connector-forger') }, { allow: ['127.0.0.0/8'] });
  transport = createTransport({ network: { allow: ['127.0.0.0/8'] } });
});
afterAll(async () => {
  await transport?.close();
  await plugin?.close();
  await forger?.close();
  await folder?.cleanup();
  provider.closeAllConnections();
  await new Promise<void>((resolve) => provider.close(() => resolve()));
});

function executor(from = plugin) {
  return createExecutor({
    plugins: [{ package: from.package, runner: from.runner }],
    resolveConnection: (id) => ({ id, baseUrl: url }),
    resolveCredential: () => TOKEN,
    transport,
    log: () => undefined,
  });
}

const request: OptionsRequest = {
  connectorKey: 'picker',
  action: 'jobs.create',
  field: 'project_id',
  connectionId: 'c1',
};

describe('options of a connector in a plugin’s own process', () => {
  test('are listed there through the same protocol, the search sent, the echoed token redacted', async () => {
    const page = await executor().listOptions({ ...request, search: 'Interview', cursor: 'c1' });
    expect(page).toEqual({
      items: [{ value: 'p_1', label: expect.stringContaining('Interview of') }],
      nextCursor: 'c2',
    });
    expect(JSON.stringify(page)).not.toContain(TOKEN);
    expect(paths.at(-1)).toBe('/projects?name=Interview&cursor=c1');
  });

  test('a field without options and a bad query are refused in the plugin, before any request', async () => {
    const before = paths.length;
    await expect(executor().listOptions({ ...request, field: 'note' })).rejects.toMatchObject({
      code: 'unknown_action',
      message: expect.stringContaining("no options for input field 'note'"),
    });
    await expect(executor().listOptions({ ...request, cursor: '' })).rejects.toMatchObject({ code: 'invalid_input' });
    expect(paths.length).toBe(before);
  });

  test('a page the plugin forged past its process’s checks is checked again in the host', async () => {
    await expect(executor(forger).listOptions(request)).rejects.toMatchObject({
      code: 'schema_mismatch',
      issues: expect.arrayContaining([
        expect.objectContaining({ path: 'items.0.value' }),
        expect.objectContaining({ path: 'items.0.label' }),
        expect.objectContaining({ path: 'nextCursor' }),
      ]),
    });
  });
});
