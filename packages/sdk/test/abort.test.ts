import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  bearerToken,
  CancelledError,
  createTransport,
  defineAction,
  defineConnector,
  NetworkError,
  readAll,
  TimeoutError,
  type Transport,
} from '../src/index.js';
import { example, Item } from './support/connector.js';
import { json, startServer, type TestServer } from './support/server.js';

let transport: Transport;
let server: TestServer | undefined;
beforeEach(() => {
  transport = createTransport();
});
afterEach(async () => {
  await transport.close();
  await server?.close();
});

const credential = () => 'test-credential-1234';
const item = { id: 'a', name: 'A', updated_at: '2026-11-01T00:00:00Z' };

/** One request at a time, and a short per-request timeout. */
const serial = defineConnector({
  key: 'serial',
  name: 'Serial',
  version: '1.0.0',
  vendor: null,
  category: 'developer',
  status: 'beta',
  summary: 'One request at a time.',
  auth: bearerToken(),
  rateLimits: { default: { limit: 100, per: 'second', maxConcurrent: 1 } },
  actions: [
    defineAction({
      key: 'items.get',
      label: 'Get',
      direction: 'source',
      entity: Item,
      input: z.object({ id: z.string() }),
      timeoutMs: 300,
      async *read(ctx, input) {
        yield { records: [await ctx.http.get('/items/{id}', { params: { id: input.id } })] };
      },
    }),
  ],
});

function read(connector: typeof example, id: string, baseUrl: string, signal?: AbortSignal, retry = { retries: 2, minTimeoutMs: 10, maxTimeoutMs: 20 }) {
  return readAll(connector, 'items.get', { input: { id }, connection: { baseUrl }, credential, transport, signal, retry });
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await sleep(5);
}

describe('cancellation through AbortSignal', () => {
  it('stops a request queued in the limiter; it is never sent', async () => {
    server = await startServer(async (req, res) => {
      await sleep(req.path.endsWith('/slow') ? 200 : 0);
      json(res, 200, item);
    });
    await read(serial, 'warm', server.url); // the budget's probe has come back: followers may go
    const slow = read(serial, 'slow', server.url);
    const controller = new AbortController();
    const queued = read(serial, 'queued', server.url, controller.signal);
    await until(() => server!.requests.some((request) => request.path.endsWith('/slow')));
    controller.abort();
    await expect(queued).rejects.toBeInstanceOf(CancelledError);
    await slow;
    await sleep(50);
    expect(server.requests.map((request) => request.path)).toEqual(['/items/warm', '/items/slow']);
  });

  it('stops while backing off between retries', async () => {
    server = await startServer((req, res) => json(res, 503, { message: 'down' }));
    const controller = new AbortController();
    const pending = read(example, 'a', server.url, controller.signal, { retries: 5, minTimeoutMs: 10_000, maxTimeoutMs: 10_000 });
    await until(() => server!.requests.length === 1);
    const started = Date.now();
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(CancelledError);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(server.requests).toHaveLength(1);
  });

  it('stops while the request is in flight', async () => {
    server = await startServer(async (req, res) => {
      await sleep(5_000);
      json(res, 200, item);
    });
    const controller = new AbortController();
    const pending = read(example, 'a', server.url, controller.signal);
    await until(() => server!.requests.length === 1);
    controller.abort();
    const error = await pending.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CancelledError);
    expect((error as CancelledError).toPlatformError('/p').statusCode).toBe(499);
    expect(server.requests).toHaveLength(1);
  });

  it('stops while the budget is paused', async () => {
    server = await startServer((req, res) => json(res, 429, { message: 'wait' }, { 'retry-after': '4' }));
    const controller = new AbortController();
    const pending = read(example, 'a', server.url, controller.signal);
    await until(() => server!.requests.length === 1);
    await sleep(100);
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(CancelledError);
  });
});

describe('timeouts', () => {
  it('times out a provider that does not answer, retrying reads, with a timeout error', async () => {
    server = await startServer(async (req, res) => {
      await sleep(2_000);
      json(res, 200, item);
    });
    const error = await read(serial, 'a', server.url).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toBe('GET /items/a: no complete answer within 300 ms');
    expect(server.requests).toHaveLength(3);
  });

  it('times out a body that stalls after the headers', async () => {
    server = await startServer(async (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":');
      await sleep(2_000);
      res.end('"a"}');
    });
    const error = await read(serial, 'a', server.url, undefined, { retries: 0, minTimeoutMs: 10, maxTimeoutMs: 10 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
  });

  it('reports a body cut short as a network error, and retries the read', async () => {
    let calls = 0;
    server = await startServer((req, res) => {
      calls += 1;
      if (calls === 1) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '200' });
        res.write('{"id":"a"');
        res.socket?.destroy();
      } else json(res, 200, item);
    });
    const { records } = await read(example, 'a', server.url);
    expect(records).toEqual([item]);
    expect(server.requests).toHaveLength(2);
  });

  it('reports a refused connection as a network error', async () => {
    server = await startServer((req, res) => json(res, 200, item));
    const url = server.url;
    await server.close();
    server = undefined;
    const error = await read(example, 'a', url, undefined, { retries: 1, minTimeoutMs: 10, maxTimeoutMs: 10 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toMatch(/^GET \/items\/a: the connection failed \(ECONNREFUSED\)$/);
  });
});
