import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { items, startShopProvider } from '@plugboard/example-connector';
import type { FaultServer } from '@plugboard/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pageToEnd } from '../../mcp/test/page-to-end.js';
import { runCli } from '../src/index.js';
import { bufferIo, pluginFolderWith, TOKEN } from './support.js';

/**
 * `plugboard mcp KEY --plugins DIR`: a plugin folder's connector served as MCP tools, running in
 * a process of its own as `run --plugins` runs it, reached by the official MCP client over stdio
 * and Streamable HTTP, every call against the example connector's provider on 127.0.0.1.
 */

const BIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const EXAMPLE = fileURLToPath(new URL('../../../tools/example-connector', import.meta.url));
const ITEMS = items(5);

let provider: FaultServer;
let home: string;
let pluginDir: string;
const closing: Array<() => Promise<void>> = [];

beforeAll(async () => {
  provider = await startShopProvider({ items: ITEMS, token: TOKEN });
  home = await mkdtemp(join(tmpdir(), 'plugboard-mcp-plugins-'));
  // A plugin folder as npm leaves it: the example connector's package, installed by its name.
  pluginDir = join(home, 'shop-plugins');
  await mkdir(join(pluginDir, 'node_modules', '@plugboard'), { recursive: true });
  await symlink(EXAMPLE, join(pluginDir, 'node_modules', '@plugboard', 'example-connector'), 'dir');
});
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});
afterAll(async () => {
  await provider.close();
  await rm(home, { recursive: true, force: true });
});

/** The official client, having started `plugboard mcp` with these arguments over stdio. */
async function stdioClient(args: string[]): Promise<Client> {
  const client = new Client({ name: 'plugboard-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', ...args, '--base-url', provider.url, '--caller', 'alice'],
      env: { PLUGBOARD_CREDENTIAL: TOKEN, PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    }),
  );
  closing.push(() => client.close());
  return client;
}

/** The plugin processes this test process started itself (its children running the runtime's plugin script). */
function ownPluginProcesses(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return parent === process.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('plugin-process');
      } catch {
        return false; // ended while read
      }
    })
    .map(Number);
}

describe('plugboard mcp --plugins', () => {
  it("lists a plugin folder's connector's tools exactly as --connector lists the same connector's", async () => {
    const isolated = await stdioClient(['shop', '--plugins', pluginDir]);
    const imported = await stdioClient(['--connector', EXAMPLE]);
    const { tools } = await isolated.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'shop_items_list',
      'shop_jobs_run',
      'shop_orders_create',
      'shop_quotes_create',
      'shop_refunds_create',
    ]);
    expect(tools).toEqual((await imported.listTools()).tools);
    const list = tools.find((tool) => tool.name === 'shop_items_list')!;
    expect(list.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
    expect(Object.keys(list.inputSchema.properties ?? {})).toEqual(['limit', 'cursor']);
  });

  it("pages a source to its end and runs a destination once under its key, through the plugin's process", async () => {
    const client = await stdioClient(['shop', '--plugins', pluginDir]);
    const { records, calls } = await pageToEnd(client, 'shop_items_list', { limit: 2 });
    expect(records.map((record) => record.id)).toEqual(ITEMS.map((item) => item.id));
    expect(calls).toBeGreaterThanOrEqual(3);
    const before = provider.requests.length;
    const args = { sku: 'SKU-1', quantity: 2, idempotencyKey: 'mcp-plugins-order-1' };
    const first = await client.callTool({ name: 'shop_orders_create', arguments: args });
    const again = await client.callTool({ name: 'shop_orders_create', arguments: args });
    expect(first.isError, JSON.stringify(first.content)).toBeFalsy();
    expect(first.structuredContent).toMatchObject({ order_id: expect.any(String) });
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(provider.requests.length - before).toBe(1);
    const refused = await client.callTool({ name: 'shop_orders_create', arguments: { sku: 'SKU-1', quantity: 0 } });
    expect(refused.structuredContent).toMatchObject({ code: 'invalid_input', fields: ['quantity'] });
    expect(JSON.stringify([records, first, refused])).not.toContain(TOKEN);
  });

  it("serves Streamable HTTP until its signal ends it; the plugin's process ends with the server", async () => {
    expect(ownPluginProcesses()).toEqual([]);
    let listening: (line: string) => void;
    const url = new Promise<string>((resolve) => (listening = resolve));
    const io = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
    io.io.stdout = { write: (text: string) => (listening(text), true) };
    const controller = new AbortController();
    const argv = ['mcp', 'shop', '--plugins', pluginDir, '--base-url', provider.url, '--http', '0', '--state', home];
    const running = runCli(argv, io.io, { signal: controller.signal });
    const ended = running.then((code) => Promise.reject(new Error(`exited ${code}: ${io.stderr()}`)));
    const printed = JSON.parse(await Promise.race([url, ended])) as { url: string; tools: number };
    expect(printed.tools).toBe(5);
    const client = new Client({ name: 'plugboard-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(printed.url)));
    const { records } = await pageToEnd(client, 'shop_items_list', { limit: 5 });
    expect(records).toHaveLength(ITEMS.length);
    await client.close();
    const plugins = ownPluginProcesses();
    expect(plugins).toHaveLength(1);
    controller.abort();
    expect(await running, io.stderr()).toBe(0);
    expect(ownPluginProcesses()).toEqual([]);
  });

  it('refuses a plugin whose description is oversized, naming the action and the field; run still takes it', async () => {
    const { plugins } = await pluginFolderWith(
      home,
      'connector-wordy',
      `import { z } from 'zod';
import { bearerToken, defineAction, defineConnector } from '@plugboard/sdk';
const Thing = z.object({ id: z.string() }).meta({ id: 'WordyNote' });
export default defineConnector({
  key: 'wordy', name: 'Wordy', version: '1.0.0', vendor: null, category: 'developer', status: 'beta',
  summary: 'A connector with a long field description.', auth: bearerToken(), baseUrl: 'http://127.0.0.1:9',
  actions: [defineAction({ key: 'notes.create', label: 'Create a note', direction: 'destination', entity: Thing,
    input: z.object({ text: z.string().describe('${'word '.repeat(14_000)}') }), async write() { return { id: '1' }; } })],
});
`,
    );
    const served = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
    expect(await runCli(['mcp', 'wordy', '--plugins', plugins], served.io)).toBe(2);
    expect(served.stderr()).toMatch(
      /plugin connector-wordy not loaded: the description of action 'notes\.create' was refused: tools\[0\]\.inputSchema is 70,\d{3} bytes of JSON, over the 65,536 a schema may take/,
    );
    expect(served.stdout()).toBe('');
    // Without tools asked for, nothing computes the schemas: the plugin loads as before.
    const listed = bufferIo();
    expect(await runCli(['plugins', '--dir', plugins], listed.io)).toBe(0);
    expect(JSON.parse(listed.stdout())).toMatchObject({ loaded: [{ key: 'wordy' }], failed: [] });
  });

  it("ends the plugin's process when an option is refused after it started", async () => {
    const refused = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
    const argv = ['mcp', 'shop', '--plugins', pluginDir, '--max-tools', '0', '--state', home];
    expect(await runCli(argv, refused.io)).toBe(2);
    expect(refused.stderr()).toContain('--max-tools must be a whole number from 1');
    expect(ownPluginProcesses()).toEqual([]);
  });

  it('needs the connector key with --plugins, and one place the connector comes from', async () => {
    const keyless = bufferIo();
    expect(await runCli(['mcp', '--plugins', pluginDir], keyless.io)).toBe(2);
    expect(keyless.stderr()).toContain('--plugins: name the connector to serve');
    const both = bufferIo();
    expect(await runCli(['mcp', 'shop', '--plugins', pluginDir, '--connector', EXAMPLE], both.io)).toBe(2);
    expect(both.stderr()).toContain('--connector and --plugins');
    expect(ownPluginProcesses()).toEqual([]);
  });
});
