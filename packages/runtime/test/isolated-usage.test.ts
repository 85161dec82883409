import { join } from 'node:path';
import { createExecutor } from '@plugboard/sdk/host';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type IsolatedPlugin, startPlugin } from '../src/index.js';
import { npmFolder, type PluginFolder } from './support/plugins.js';

/** A connector whose read keeps 64 MB outside the heap, written so that it is resident. */
const entry = `
import { z } from 'zod';
import { bearerToken, defineAction, defineConnector } from '@plugboard/sdk';
const kept = [];
export default defineConnector({
  key: 'hog', name: 'Hog', version: '1.0.0', vendor: null, category: 'developer', status: 'beta',
  summary: 'Holds memory.', auth: bearerToken(),
  actions: [
    defineAction({ key: 'memory.hold', label: 'Hold memory', direction: 'source',
      entity: z.object({ id: z.string() }).meta({ id: 'HogHeld' }), input: z.object({}),
      async *read() { kept.push(Buffer.alloc(64 * 1024 * 1024, 1)); yield { records: [{ id: String(kept.length) }] }; } }),
  ],
});
`;

let folder: PluginFolder;
let plugin: IsolatedPlugin;

beforeAll(async () => {
  folder = await npmFolder([{ name: 'connector-hog', entry }]);
  plugin = await startPlugin({ dir: join(folder.modules, 'connector-hog') });
});
afterAll(async () => {
  await plugin?.close();
  await folder?.cleanup();
});

test("usage() answers the running process's id and memory, and nothing once it ended", async () => {
  const before = await plugin.usage();
  expect(before).toBeDefined();
  expect(() => process.kill(before!.pid, 0)).not.toThrow();
  expect(before!.heapUsedBytes).toBeGreaterThan(0);
  expect(before!.rssBytes).toBeGreaterThan(before!.heapUsedBytes);

  const executor = createExecutor({
    plugins: [plugin],
    resolveConnection: (id) => ({ id, baseUrl: 'http://127.0.0.1:9' }),
    resolveCredential: () => 'token',
  });
  await executor.execute({ connectorKey: 'hog', action: 'memory.hold', connectionId: 'c', onPage: () => undefined });
  const after = await plugin.usage();
  expect(after!.pid).toBe(before!.pid);
  // The buffer lies outside the heap: the resident set shows it.
  expect(after!.rssBytes - before!.rssBytes).toBeGreaterThan(60 * 1024 * 1024);

  await plugin.close();
  expect(await plugin.usage()).toBeUndefined();
});
