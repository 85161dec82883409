import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { CancelledError, NetworkError, readAll, TimeoutError } from '../src/index.js';
import { example, itemsGetConnector } from './support/connector.js';
import { fastRetry, useHarness } from './support/harness.js';
import { json } from './support/server.js';

const h = useHarness();
const item = { id: 'a', name: 'A', updated_at: '2026-11-01T00:00:00Z' };

/** One request at a time, and a short per-request timeout. */
const serial = itemsGetConnector({
  key: 'serial',
  name: 'Serial',
  summary: 'One request at a time.',
  rateLimits: { default: { limit: 100, per: 'second', maxConcurrent: 1 } },
  timeoutMs: 300,
});

function read(connector: typeof example, id: string, baseUrl: string, signal?: AbortSignal, retry = fastRetry(2)) {
  return readAll(connector, 'items.get', h.options({ input: { id }, connection: { baseUrl }, signal, retry }));
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await sleep(5);
}

describe('cancellation through AbortSignal', () => {
  it('stops a request queued in the limiter; it is never sent', async () => {
    const server = await h.start(async (req, res) => {
      await sleep(req.path.endsWith('/slow') ? 200 : 0);
      json(res, 200, item);
    });
    await read(serial, 'warm', server.url); // the budget's probe has come back: followers may go
    const slow = read(serial, 'slow', server.url);
    const controller = new AbortController();
    const queued = read(serial, 'queued', server.url, controller.signal);
    await until(() => server.requests.some((request) => request.path.endsWith('/slow')));
    controller.abort();
    await expect(queued).rejects.toBeInstanceOf(CancelledError);
    await slow;
    await sleep(50);
    expect(server.requests.map((request) => request.path)).toEqual(['/items/warm', '/items/slow']);
  });

  it('stops while backing off between retries', async () => {
    const server = await h.start((req, res) => json(res, 503, { message: 'down' }));
    const controller = new AbortController();
    const pending = read(example, 'a', server.url, controller.signal, {
      retries: 5,
      minTimeoutMs: 10_000,
      maxTimeoutMs: 10_000,
    });
    await until(() => server.requests.length === 1);
    const started = Date.now();
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(CancelledError);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(server.requests).toHaveLength(1);
  });

  it('stops while the request is in flight', async () => {
    const server = await h.start(async (req, res) => {
      await sleep(5_000);
      json(res, 200, item);
    });
    const controller = new AbortController();
    const pending = read(example, 'a', server.url, controller.signal);
    await until(() => server.requests.length === 1);
    controller.abort();
    const error = await pending.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CancelledError);
    expect((error as CancelledError).toPlatformError('/p').statusCode).toBe(499);
    expect(server.requests).toHaveLength(1);
  });

  it('stops while the budget is paused', async () => {
    const server = await h.start((req, res) => json(res, 429, { message: 'wait' }, { 'retry-after': '4' }));
    const controller = new AbortController();
    const pending = read(example, 'a', server.url, controller.signal);
    await until(() => server.requests.length === 1);
    await sleep(100);
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(CancelledError);
  });
});

describe('timeouts', () => {
  it('times out a provider that does not answer, retrying reads, with a timeout error', async () => {
    const server = await h.start(async (req, res) => {
      await sleep(2_000);
      json(res, 200, item);
    });
    const error = await read(serial, 'a', server.url).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toBe('GET /items/a: no complete answer within 300 ms');
    expect(server.requests).toHaveLength(3);
  });

  it('times out a body that stalls after the headers', async () => {
    const server = await h.start(async (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":');
      await sleep(2_000);
      res.end('"a"}');
    });
    const error = await read(serial, 'a', server.url, undefined, fastRetry(0, 10)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
  });

  it('reports a body cut short as a network error, and retries the read', async () => {
    let calls = 0;
    const server = await h.start((req, res) => {
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

  it('reports a refused connection as a network error naming the host', async () => {
    const server = await h.start((req, res) => json(res, 200, item));
    const url = server.url;
    await h.stop();
    const error = await read(example, 'a', url, undefined, fastRetry(1, 10)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toBe(`GET /items/a: the connection to ${new URL(url).host} failed (ECONNREFUSED)`);
  });
});
