import { request } from 'node:http';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { items, shop, startShopProvider } from '@plugboard/example-connector';
import { createTransport, type Transport } from '@plugboard/sdk';
import { catalogueEntry } from '@plugboard/sdk/host';
import { answer, type FaultServer } from '@plugboard/testing';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { CALL_TOOL, SEARCH_TOOL, serveHttp, type ToolServerOptions, toolName } from '../src/index.js';
import { shopTools } from './support.js';
import { pageToEnd } from './page-to-end.js';

/**
 * The example connector's actions served as MCP tools and reached by the official MCP client,
 * over Streamable HTTP (the library's server) and over stdio (`plugboard mcp`, the built CLI),
 * every call through the executor against the connector's provider on 127.0.0.1.
 */

const TOKEN = 'mcp-test-token-7c2e';
const ITEMS = items(5);
const CLI = join(import.meta.dirname, '..', '..', 'cli', 'dist', 'main.js');
const EXAMPLE = join(import.meta.dirname, '..', '..', '..', 'tools', 'example-connector');

let provider: FaultServer;
let transport: Transport;
const closing: Array<() => Promise<void>> = [];

beforeAll(async () => {
  provider = await startShopProvider({ items: ITEMS, token: TOKEN });
  transport = createTransport();
});
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});
afterAll(async () => {
  await transport.close();
  await provider.close();
});

const toolOptions = (extra: Partial<ToolServerOptions> = {}) => shopTools(provider, transport, TOKEN, extra);

async function httpClient(options: ToolServerOptions): Promise<Client> {
  const served = await serveHttp(options);
  closing.push(() => served.close());
  const client = new Client({ name: 'plugboard-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
  closing.push(() => client.close());
  return client;
}

describe('actions as MCP tools, over Streamable HTTP', () => {
  test("lists one tool per action of the catalogue, with the action's schemas and all four hints", async () => {
    const client = await httpClient(toolOptions());
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(
      catalogueEntry(shop).operations.map((operation) => toolName('shop', operation.key)),
    );
    for (const tool of tools) {
      expect(tool.name.length).toBeLessThanOrEqual(64);
      expect(Object.keys(tool.annotations ?? {}).sort()).toEqual([
        'destructiveHint',
        'idempotentHint',
        'openWorldHint',
        'readOnlyHint',
        'title',
      ]);
      expect(tool.outputSchema?.type).toBe('object');
    }
    const list = tools.find((tool) => tool.name === 'shop_items_list')!;
    expect(list.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
    expect(Object.keys(list.inputSchema.properties ?? {})).toEqual(['limit', 'cursor']);
    const order = tools.find((tool) => tool.name === 'shop_orders_create')!;
    expect(order.annotations).toMatchObject({ readOnlyHint: false });
    expect(Object.keys(order.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['sku', 'quantity', 'idempotencyKey', 'approvalId']),
    );
  });

  test('pages a source to its end, one bounded page a call, with an opaque cursor', async () => {
    const client = await httpClient(toolOptions());
    const { records, calls } = await pageToEnd(client, 'shop_items_list', { limit: 2 });
    expect(records.map((record) => record.id)).toEqual(ITEMS.map((item) => item.id));
    expect(calls).toBeGreaterThanOrEqual(3);
  });

  test('runs a destination once under an idempotency key; a second call with the key returns the first result', async () => {
    const client = await httpClient(toolOptions());
    const before = provider.requests.length;
    const args = { sku: 'SKU-1', quantity: 2, idempotencyKey: 'mcp-order-1' };
    const first = await client.callTool({ name: 'shop_orders_create', arguments: args });
    const again = await client.callTool({ name: 'shop_orders_create', arguments: args });
    expect(first.isError).toBeFalsy();
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(provider.requests.length - before).toBe(1);
  });

  test.each(['legacy', 'auto'] as const)(
    "a call that asks for progress hears the action's progress before its answer (%s protocol)",
    async (mode) => {
      const served = await serveHttp(toolOptions());
      closing.push(() => served.close());
      const client = new Client({ name: 'plugboard-test', version: '1.0.0' }, { versionNegotiation: { mode } });
      await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
      closing.push(() => client.close());
      const heard: unknown[] = [];
      const job = await client.callTool(
        { name: 'shop_jobs_run', arguments: { steps: 2 } },
        { onprogress: (progress) => heard.push(progress) },
      );
      expect(job.structuredContent).toMatchObject({ job_id: expect.any(String), state: 'done' });
      expect(heard).toEqual([
        { progress: 1, total: 2, message: 'Working' },
        { progress: 2, total: 2, message: 'Working' },
      ]);
    },
  );

  test('arguments that fail the schema, a bad cursor and an unknown tool are tool errors naming the field; nothing is sent', async () => {
    const client = await httpClient(toolOptions());
    const before = provider.requests.length;
    const bad = await client.callTool({ name: 'shop_orders_create', arguments: { sku: 'SKU-1', quantity: 'two' } });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toMatchObject({ code: 'invalid_input', fields: ['quantity'] });
    const cursor = await client.callTool({ name: 'shop_items_list', arguments: { cursor: 'not a cursor!' } });
    expect(cursor.structuredContent).toMatchObject({ code: 'invalid_input', fields: ['cursor'] });
    const unknown = await client.callTool({ name: 'shop_nothing', arguments: {} });
    expect(unknown.isError).toBe(true);
    expect(JSON.stringify(unknown.content)).toContain('unknown_tool');
    expect(provider.requests.length).toBe(before);
  });

  test("a provider's 402 is a tool error naming the quota and the amounts; the billable write is not retried", async () => {
    const client = await httpClient(toolOptions());
    const before = provider.requests.length;
    provider.next(
      answer({
        status: 402,
        body: {
          error: { message: 'Insufficient credits', quota: 'credits', unit: 'credits', required: 20, available: 3 },
        },
      }),
    );
    const result = await client.callTool({ name: 'shop_orders_create', arguments: { sku: 'SKU-1', quantity: 2 } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      code: 'quota_exhausted',
      quota: 'credits',
      unit: 'credits',
      required: 20,
      available: 3,
    });
    expect(provider.requests.length - before).toBe(1);
  });

  test('a credential the provider echoes reaches the agent nowhere: not in a record, not in an error', async () => {
    const client = await httpClient(toolOptions());
    provider.next(
      answer({ body: { data: [{ id: 'item_x', name: `echo ${TOKEN}`, updated_at: '2026-01-01T00:00:00.000Z' }] } }),
      answer({ status: 400, body: { error: `the token ${TOKEN} may not do this` } }),
    );
    const page = await client.callTool({ name: 'shop_items_list', arguments: {} });
    const refused = await client.callTool({ name: 'shop_orders_create', arguments: { sku: 'SKU-1', quantity: 1 } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify([page, refused])).not.toContain(TOKEN);
    expect(JSON.stringify(page.structuredContent)).toContain('item_x');
  });

  test('an action that needs an approval does not run without one: a tool error with the digest to review', async () => {
    const client = await httpClient(toolOptions({ environment: 'production' }));
    const before = provider.requests.length;
    const result = await client.callTool({ name: 'shop_orders_create', arguments: { sku: 'SKU-1', quantity: 1 } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ code: 'approval_required' });
    expect(provider.requests.length).toBe(before);
  });

  test('past --max-tools, two tools: search the actions and call one by name through the same checks', async () => {
    const client = await httpClient(toolOptions({ maxTools: 2 }));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([SEARCH_TOOL, CALL_TOOL]);
    const found = await client.callTool({ name: SEARCH_TOOL, arguments: { query: 'list items' } });
    expect(
      (found.structuredContent as { matches: Array<{ name: string }> }).matches.map((match) => match.name),
    ).toEqual(['shop_items_list']);
    const page = await client.callTool({
      name: CALL_TOOL,
      arguments: { name: 'shop_items_list', arguments: { limit: 5 } },
    });
    expect((page.structuredContent as { records: unknown[] }).records).toHaveLength(5);
    const bad = await client.callTool({
      name: CALL_TOOL,
      arguments: { name: 'shop_orders_create', arguments: { quantity: 'two' } },
    });
    expect(bad.structuredContent).toMatchObject({ code: 'invalid_input' });
  });
});

describe('bad requests over HTTP', () => {
  test('malformed JSON-RPC, an oversized body and a foreign host are refused before any run; the server still serves', async () => {
    const served = await serveHttp(toolOptions(), { maxBodyBytes: 64 * 1024 });
    closing.push(() => served.close());
    const before = provider.requests.length;
    const post = (body: string) =>
      fetch(served.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body,
      });
    const garbage = await post('{"jsonrpc":"2.0","method":');
    expect(garbage.status).toBeGreaterThanOrEqual(400);
    expect(((await garbage.json()) as { error?: { code: number } }).error?.code).toBe(-32700);
    const huge = await post(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(100_000) } }),
    );
    expect(huge.status).toBe(413);
    // fetch keeps its own Host header: a raw request names another host, as a rebound page's would.
    const rebound = await new Promise<number>((done, fail) => {
      const sent = request(
        served.url,
        { method: 'POST', headers: { host: 'attacker.example', 'content-type': 'application/json' } },
        (answer) => {
          answer.resume();
          done(answer.statusCode ?? 0);
        },
      );
      sent.once('error', fail);
      sent.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    });
    expect(rebound).toBe(403);
    expect(provider.requests.length).toBe(before);
    const client = new Client({ name: 'plugboard-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    closing.push(() => client.close());
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });
});

describe('plugboard mcp over stdio', () => {
  test('the official client starts the command, lists the tools and pages a source; no credential in any result', async () => {
    const client = new Client({ name: 'plugboard-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp', '--connector', EXAMPLE, '--base-url', provider.url, '--caller', 'alice'],
        env: { PLUGBOARD_CREDENTIAL: TOKEN, PATH: process.env.PATH ?? '' },
        stderr: 'pipe',
      }),
    );
    closing.push(() => client.close());
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('shop_items_list');
    const { records } = await pageToEnd(client, 'shop_items_list', { limit: 3 });
    expect(records).toHaveLength(ITEMS.length);
    const refused = await client.callTool({ name: 'shop_refunds_create', arguments: { sku: 'SKU-1', quantity: 1 } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify([records, refused])).not.toContain(TOKEN);
  });
});
