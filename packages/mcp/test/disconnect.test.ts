import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client, type FetchLike, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTransport, type Transport } from '@plugboard/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { serveHttp } from '../src/index.js';
import { type HeldProvider, startHeldProvider } from './held-provider.js';
import { PipeTransport } from './pipe-transport.js';
import { shopTools } from './support.js';

/**
 * A client that goes away in the middle of a call, while the provider has not answered yet: the
 * server goes on serving the others, the abandoned run is aborted (its provider request's
 * connection closes), its idempotency key is not left claimed, and `plugboard mcp` over stdio
 * exits cleanly when its input ends.
 */

const TOKEN = 'mcp-disconnect-token-5e1a';
const CLI = join(import.meta.dirname, '..', '..', 'cli', 'dist', 'main.js');
const EXAMPLE = join(import.meta.dirname, '..', '..', '..', 'tools', 'example-connector');
const QUOTE = { sku: 'SKU-1', idempotencyKey: 'quote-once' };
type Era = 'legacy' | 'auto';

let provider: HeldProvider;
let transport: Transport;
const closing: Array<() => Promise<void>> = [];

beforeAll(async () => {
  provider = await startHeldProvider(TOKEN);
  transport = createTransport();
});
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});
afterAll(async () => {
  await transport.close();
  await provider.close();
});

/** A fetch whose requests the test drops at once, as a client that goes away does. */
function leavingFetch() {
  const controllers: AbortController[] = [];
  const leaving = (url: string | URL, init?: RequestInit) => {
    const controller = new AbortController();
    controllers.push(controller);
    const signal = init?.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal;
    return fetch(url, { ...init, signal });
  };
  const leave = () => {
    for (const controller of controllers) controller.abort();
  };
  return { fetch: leaving, leave };
}

/** The official client over HTTP: `legacy` speaks the 2025 protocol (initialize), `auto` the 2026 one when the server does. */
async function httpClient(url: string, mode: Era = 'legacy', fetchLike?: FetchLike): Promise<Client> {
  const client = new Client({ name: 'plugboard-test', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), fetchLike ? { fetch: fetchLike } : {}));
  closing.push(() => client.close());
  return client;
}

async function quoted(client: Client, args: Record<string, unknown> = QUOTE) {
  const result = await client.callTool({ name: 'shop_quotes_create', arguments: args });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent;
}

async function listed(client: Client) {
  const result = await client.callTool({ name: 'shop_items_list', arguments: { limit: 2 } });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return (result.structuredContent as { records: unknown[] }).records.length;
}

describe.each<Era>(['legacy', 'auto'])('a client that goes away mid-call, over Streamable HTTP (%s)', (era) => {
  test('its run is aborted and its key freed; another client is served meanwhile and after', async () => {
    const served = await serveHttp(shopTools(provider, transport, TOKEN));
    closing.push(() => served.close());
    const leaving = leavingFetch();
    const gone = await httpClient(served.url, era, leaving.fetch);
    const other = await httpClient(served.url, era);
    // The budget's first request is its probe, which the others wait for: the held one comes after.
    expect(await listed(other)).toBe(2);
    const before = provider.count('/quotes');
    const holding = provider.holdNext('/quotes');
    const abandoned = gone.callTool({ name: 'shop_quotes_create', arguments: QUOTE });
    const held = await holding;
    expect(await listed(other)).toBe(2);
    leaving.leave();
    await expect(abandoned).rejects.toThrow();
    await held.abandoned;
    expect(await quoted(other)).toMatchObject({ order_id: expect.any(String) });
    expect(provider.count('/quotes') - before).toBe(2);
    expect(await listed(other)).toBe(2);
  });

  test('a billable write abandoned after it was sent leaves its key uncertain, not running: a repeat is told at once', async () => {
    const served = await serveHttp(shopTools(provider, transport, TOKEN));
    closing.push(() => served.close());
    const leaving = leavingFetch();
    const gone = await httpClient(served.url, era, leaving.fetch);
    const other = await httpClient(served.url, era);
    const order = { sku: 'SKU-1', quantity: 1, idempotencyKey: 'order-abandoned' };
    const holding = provider.holdNext('/orders');
    const abandoned = gone.callTool({ name: 'shop_orders_create', arguments: order });
    const held = await holding;
    leaving.leave();
    await expect(abandoned).rejects.toThrow();
    await held.abandoned;
    const again = await other.callTool({ name: 'shop_orders_create', arguments: order });
    expect(again.isError).toBe(true);
    expect(again.structuredContent).toMatchObject({ code: 'conflict' });
    expect(JSON.stringify(again.content)).toContain('may have reached the provider');
  });
});

/** `plugboard mcp` started as a client starts it, with the pipes in the test's hands. */
function plugboardMcp(args: string[]): { child: ChildProcessWithoutNullStreams; exited: Promise<unknown[]> } {
  const env = { PLUGBOARD_CREDENTIAL: TOKEN, PATH: process.env.PATH ?? '' };
  const child = spawn(process.execPath, [CLI, 'mcp', '--connector', EXAMPLE, '--base-url', provider.url, ...args], {
    env,
  });
  const exited = once(child, 'exit');
  closing.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  return { child, exited };
}

/** `plugboard mcp` with the official client on its pipes; `stderr()` is what it said so far. */
async function connectedMcp(args: string[]) {
  const started = plugboardMcp(args);
  let said = '';
  started.child.stderr.on('data', (chunk: Buffer) => {
    said += chunk.toString();
  });
  const pipe = new PipeTransport(started.child);
  const client = new Client({ name: 'plugboard-test', version: '1.0.0' });
  await client.connect(pipe);
  return { ...started, pipe, client, stderr: () => said };
}

describe('a client that goes away mid-call from plugboard mcp, a process of its own', () => {
  let state: string;
  beforeAll(async () => {
    state = await mkdtemp(join(tmpdir(), 'plugboard-mcp-disconnect-'));
  });
  afterAll(async () => {
    await rm(state, { recursive: true, force: true });
  });

  test('over stdio: the run is aborted, the process exits 0 when its input ends, and the key is free for the next process', async () => {
    const { exited, pipe, client, stderr } = await connectedMcp(['--caller', 'alice', '--state', state]);
    const holding = provider.holdNext('/quotes');
    const abandoned = client.callTool({ name: 'shop_quotes_create', arguments: QUOTE }).catch(() => 'gone');
    const held = await holding;
    await pipe.close();
    await held.abandoned;
    expect(await exited, stderr()).toEqual([0, null]);
    expect(await abandoned).toBe('gone');

    const next = await connectedMcp(['--caller', 'bob', '--state', state]);
    const again = next.client;
    expect(await quoted(again)).toMatchObject({ order_id: expect.any(String) });
    await again.close();
    expect(await next.exited).toEqual([0, null]);
  });

  test('over stdio: an answer written after the client stopped reading does not cut short a run still going: its key is freed', async () => {
    const { child, exited, client, stderr } = await connectedMcp(['--caller', 'alice', '--state', state]);
    expect(await listed(client)).toBe(2);
    const holdingQuote = provider.holdNext('/quotes');
    const abandoned = client
      .callTool({ name: 'shop_quotes_create', arguments: { ...QUOTE, idempotencyKey: 'quote-epipe' } })
      .catch(() => 'gone');
    const quote = await holdingQuote;
    const holdingList = provider.holdNext('/items');
    const answered = client.callTool({ name: 'shop_items_list', arguments: {} }).catch(() => 'gone');
    const list = await holdingList;
    // The client stops reading but its input is still open: the answer the server writes meets a closed pipe.
    child.stdout.destroy();
    list.answer();
    await quote.abandoned;
    expect(await exited, stderr()).toEqual([0, null]);
    expect([await abandoned, await answered]).toEqual(['gone', 'gone']);

    const next = await connectedMcp(['--caller', 'bob', '--state', state]);
    const again = next.client;
    expect(await quoted(again, { ...QUOTE, idempotencyKey: 'quote-epipe' })).toMatchObject({
      order_id: expect.any(String),
    });
    await again.close();
  });

  test('over HTTP, with its output pipe gone: it keeps serving the others', async () => {
    const { child } = plugboardMcp(['--http', '0', '--state', state]);
    const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    const { url } = JSON.parse(line) as { url: string };
    child.stdout.destroy();
    const leaving = leavingFetch();
    const gone = await httpClient(url, 'legacy', leaving.fetch);
    const other = await httpClient(url);
    expect(await listed(other)).toBe(2);
    const holding = provider.holdNext('/quotes');
    const abandoned = gone.callTool({ name: 'shop_quotes_create', arguments: { sku: 'SKU-2' } });
    const held = await holding;
    leaving.leave();
    await expect(abandoned).rejects.toThrow();
    await held.abandoned;
    expect(await listed(other)).toBe(2);
    expect(child.exitCode).toBeNull();
  });
});
