import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  apiKeyQuery,
  basicAuth,
  bearerToken,
  createTransport,
  defineConnector,
  readAll,
  type RunOptions,
  type Transport,
} from '../src/index.js';
import { createHostTransport, type HttpStage } from '../src/host.js';
import { itemGet, itemsList } from './support/connector.js';
import { json, startServer, type TestServer } from './support/server.js';

/**
 * What a connection's runs share (run/wiring.ts): the stages from the host's down to the
 * transport are made once per connection and action, and kept for the runs that come next; what
 * a run's credential, connection or environment changes is wired apart.
 */

const item = (id: string) => ({ id, name: `Item ${id}`, updated_at: '2026-11-01T00:00:00Z' });

const shop = defineConnector({
  key: 'shop',
  name: 'Shop',
  version: '1.0.0',
  vendor: null,
  category: 'developer',
  status: 'beta',
  summary: 'Items of a shop, for the wiring tests.',
  auth: [bearerToken(), apiKeyQuery('api_key'), basicAuth()],
  rateLimits: { default: { limit: 1_000, per: 'second' } },
  actions: [itemGet, itemsList],
});

let transport: Transport | undefined;
const servers: TestServer[] = [];
afterEach(async () => {
  await transport?.close();
  transport = undefined;
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function server(): Promise<TestServer> {
  const started = await startServer((req, res) =>
    json(res, 200, req.path === '/items' ? { data: [item('listed')] } : item(req.path.split('/').pop()!)),
  );
  servers.push(started);
  return started;
}

function get(baseUrl: string, options: Partial<RunOptions> = {}) {
  return readAll(shop, 'items.get', {
    input: { id: 'a' },
    connection: { baseUrl },
    credential: () => 'first-credential-1234',
    transport,
    log: () => undefined,
    ...options,
  });
}

describe("a connection's wiring", () => {
  it('makes the host stages once per connection and action, and they see every request of every run', async () => {
    const provider = await server();
    const made: string[] = [];
    const seen: string[] = [];
    const observe: HttpStage = (next, run) => {
      made.push(`${run.connectionId} ${run.action}`);
      return (call) => {
        seen.push(`${run.connectionId} ${call.operation}`);
        return next(call);
      };
    };
    transport = createHostTransport({ stages: [observe] });
    await get(provider.url);
    await get(provider.url);
    await get(provider.url, { connection: { id: 'second', baseUrl: provider.url } });
    await readAll(shop, 'items.list', {
      input: {},
      connection: { baseUrl: provider.url },
      credential: () => 'first-credential-1234',
      transport,
      log: () => undefined,
    });
    expect(made).toEqual(['default items.get', 'second items.get', 'default items.list']);
    expect(seen).toEqual(['default GET /items/a', 'default GET /items/a', 'second GET /items/a', 'default GET /items']);
    expect(provider.requests).toHaveLength(4);
  });

  it.each([
    ['a bearer token', {}, (headers: Record<string, unknown>, _query: URLSearchParams) => headers.authorization],
    [
      'an API key in the query',
      { authScheme: 'query:api_key' },
      (_headers: Record<string, unknown>, query: URLSearchParams) => query.get('api_key'),
    ],
  ])('sends the credential each run resolves, %s changed between runs and back', async (_, settings, sent) => {
    const provider = await server();
    transport = createTransport();
    for (const credential of ['first-credential-1234', 'second-credential-5678', 'first-credential-1234'])
      await get(provider.url, { credential: () => credential, connection: { baseUrl: provider.url, settings } });
    expect(provider.requests.map((request) => String(sent(request.headers, request.query)))).toEqual([
      expect.stringContaining('first-credential-1234'),
      expect.stringContaining('second-credential-5678'),
      expect.stringContaining('first-credential-1234'),
    ]);
  });

  it('sends a Basic credential whose username alone changed', async () => {
    const provider = await server();
    transport = createTransport();
    const settings = { authScheme: 'basic' };
    for (const username of ['ana', 'bob'])
      await get(provider.url, {
        credential: () => ({ username, password: 'the-same-password-1234' }),
        connection: { baseUrl: provider.url, settings },
      });
    expect(provider.requests.map((request) => request.headers.authorization)).toEqual([
      `Basic ${Buffer.from('ana:the-same-password-1234').toString('base64')}`,
      `Basic ${Buffer.from('bob:the-same-password-1234').toString('base64')}`,
    ]);
  });

  it('wires the same credential apart for another base URL, and for another environment', async () => {
    const [one, two] = [await server(), await server()];
    transport = createTransport({ network: { allow: ['127.0.0.0/8'] } });
    await get(one.url);
    await get(two.url);
    await get(one.url);
    await get(one.url, { environment: 'production' });
    expect([one.requests.length, two.requests.length]).toEqual([3, 1]);
    // The production run goes only where production may: refused without the allowance.
    const strict = createTransport();
    try {
      await get(one.url, { transport: strict });
      await expect(get(one.url, { transport: strict, environment: 'production' })).rejects.toMatchObject({
        code: 'address_refused',
      });
    } finally {
      await strict.close();
    }
    expect(one.requests).toHaveLength(4);
  });
});

const CHILD = fileURLToPath(new URL('./support/timer-exit-child.mjs', import.meta.url));
const DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));

describe("the timeout stage's timer", () => {
  it('holds the process open only while a request is under way', async () => {
    if (!existsSync(DIST))
      throw new Error(`${DIST} is missing: build the SDK first (pnpm --filter @plugboard/sdk build)`);
    // The action's timeout is two minutes: a timer left holding the process would outlive the bound below.
    const { stdout } = await promisify(execFile)(process.execPath, [CHILD], { timeout: 20_000 });
    expect(JSON.parse(stdout)).toEqual({ records: 2 });
  });
});
