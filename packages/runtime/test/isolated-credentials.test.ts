import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createTransport, type LogEntry } from '@plugboard/sdk';
import { createExecutor } from '@plugboard/sdk/host';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type IsolatedPlugin, startPlugin } from '../src/index.js';
import { npmFolder, type PluginFolder } from './support/plugins.js';

/** A connector in a plugin's own process whose scheme takes a username and a password. */
const entry = `
import { z } from 'zod';
import { basicAuth, defineAction, defineConnector } from '@plugboard/sdk';
const Me = z.object({ id: z.string(), echo: z.string() }).meta({ id: 'BasicMe' });
export default defineConnector({
  key: 'basic', name: 'Basic', version: '1.0.0', vendor: null, category: 'developer', status: 'beta',
  summary: 'Basic auth in a plugin.', auth: basicAuth(),
  actions: [
    defineAction({ key: 'me.get', label: 'Me', direction: 'source', entity: Me, input: z.object({}),
      async *read(ctx) { const me = await ctx.http.get('/me'); ctx.log.warn('got ' + JSON.stringify(me)); yield { records: [me] }; } }),
  ],
});
`;

const PASSWORD = 'plugin-password-5e7a9c1b3d';
const seen: IncomingHttpHeaders[] = [];
let folder: PluginFolder;
let plugin: IsolatedPlugin;
let provider: ReturnType<typeof createServer>;
let url: string;

beforeAll(async () => {
  // A provider that echoes the Authorization header it got, as a hostile one would.
  provider = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'me', echo: String(req.headers.authorization) }));
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
  folder = await npmFolder([{ name: 'connector-basic', entry }]);
  plugin = await startPlugin({ dir: join(folder.modules, 'connector-basic') }, { allow: ['127.0.0.0/8'] });
});
afterAll(async () => {
  await plugin?.close();
  await folder?.cleanup();
  provider.closeAllConnections();
  await new Promise<void>((resolve) => provider.close(() => resolve()));
});

describe('a typed credential crosses to a plugin in its own process', () => {
  test('the plugin sends HTTP Basic, and the host hides the password and its Basic token from records and logs', async () => {
    const transport = createTransport({ network: { allow: ['127.0.0.0/8'] } });
    const logs: LogEntry[] = [];
    try {
      const executor = createExecutor({
        plugins: [{ package: plugin.package, runner: plugin.runner }],
        resolveConnection: (id) => ({ id, baseUrl: url }),
        resolveCredential: () => ({ username: 'ada', password: PASSWORD }),
        transport,
        log: (entry) => void logs.push(entry),
      });
      const pages: unknown[] = [];
      await executor.execute({
        connectorKey: 'basic',
        action: 'me.get',
        connectionId: 'conn_1',
        onPage: (page) => void pages.push(page),
      });
      const token = Buffer.from(`ada:${PASSWORD}`).toString('base64');
      expect(seen.map((headers) => headers.authorization)).toEqual([`Basic ${token}`]);
      const shown = JSON.stringify({ pages, logs });
      expect(logs.length).toBeGreaterThan(0);
      expect(shown).not.toContain(token);
      expect(shown).not.toContain(PASSWORD);
    } finally {
      await transport.close();
    }
  });
});
