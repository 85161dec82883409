import { afterEach, describe, expect, it } from 'vitest';
import { createTransport, readAll, writeAction } from '../src/index.js';
import { example } from './support/connector.js';
import { useHarness } from './support/harness.js';
import { json, startServer, type TestServer } from './support/server.js';

const h = useHarness();
let other: TestServer | undefined;
afterEach(async () => {
  await other?.close();
  other = undefined;
});

const item = { id: 'a', name: 'A', updated_at: '2026-11-01T00:00:00Z' };
const order = { customer: { email: 'ada@example.com', name: 'Ada' }, quantity: 1 };

describe('redirects', () => {
  it("follows one within the provider's origin, credential included", async () => {
    const server = await h.start((req, res) => {
      if (req.path === '/items/a') {
        res.writeHead(307, { location: '/v2/items/a' });
        res.end();
      } else json(res, 200, item);
    });
    const { records } = await readAll(
      example,
      'items.get',
      h.options({ input: { id: 'a' }, connection: { baseUrl: server.url } }),
    );
    expect(records).toEqual([item]);
    expect(server.requests.map((request) => [request.path, request.headers.authorization])).toEqual([
      ['/items/a', 'Bearer test-credential-1234'],
      ['/v2/items/a', 'Bearer test-credential-1234'],
    ]);
  });

  it.each([
    ['bearer', 'authorization'],
    ['x-api-key', 'x-api-key'],
  ])('never sends the credential (%s) to another origin', async (scheme, header) => {
    other = await startServer((req, res) => json(res, 200, item));
    const server = await h.start((req, res) => {
      res.writeHead(302, { location: `${other!.url.replace('127.0.0.1', 'localhost')}/elsewhere` });
      res.end();
    });
    const { records } = await readAll(
      example,
      'items.get',
      h.options({ input: { id: 'a' }, connection: { baseUrl: server.url, settings: { authScheme: scheme } } }),
    );
    expect(records).toEqual([item]);
    expect(server.requests[0]!.headers[header]).toContain('test-credential-1234');
    expect(other.requests).toHaveLength(1);
    expect(other.requests[0]!.headers[header]).toBeUndefined();
    expect(JSON.stringify(other.requests[0]!.headers)).not.toContain('test-credential-1234');
  });

  it('turns a POST answered with 303 into a GET without the body', async () => {
    const server = await h.start((req, res) => {
      if (req.method === 'POST') {
        res.writeHead(303, { location: '/orders/o1' });
        res.end();
      } else json(res, 200, { order_id: 'o1', amount: '5.00' });
    });
    const result = await writeAction(
      example,
      'orders.create',
      h.options({ input: order, connection: { baseUrl: server.url } }),
    );
    expect(result).toEqual({ order_id: 'o1', amount: '5.00' });
    expect(server.requests.map((request) => [request.method, request.path, request.body])).toEqual([
      ['POST', '/orders', JSON.stringify(order)],
      ['GET', '/orders/o1', ''],
    ]);
  });

  it('stops after five hops and reports the redirect as the failure it is', async () => {
    const server = await h.start((req, res) => {
      res.writeHead(302, { location: `/loop${server.requests.length}` });
      res.end();
    });
    const error = await readAll(
      example,
      'items.get',
      h.options({ input: { id: 'a' }, connection: { baseUrl: server.url } }),
    ).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'provider_rejected', status: 302 });
    expect(server.requests).toHaveLength(6);
  });

  it.each(['undici', 'fetch', 'http'] as const)(
    'follows a redirect whose body never ends (%s): the body is dropped, not read to its end',
    async (via) => {
      let written = 0;
      const server = await h.start((req, res) => {
        if (req.path !== '/items/a') return json(res, 200, item);
        res.writeHead(302, { location: '/v2/items/a' });
        const chunk = Buffer.alloc(16 * 1024, 'x');
        // Writes until the client goes away: a body with no end.
        const more = () => {
          while (!res.destroyed && res.write(chunk)) written += chunk.length;
          if (!res.destroyed) res.once('drain', more);
        };
        res.on('close', () => res.removeAllListeners('drain'));
        more();
      });
      const transport = createTransport({ via });
      try {
        const { records } = await readAll(
          example,
          'items.get',
          h.options({ input: { id: 'a' }, connection: { baseUrl: server.url }, transport }),
        );
        expect(records).toEqual([item]);
        expect(server.requests.map((request) => request.path)).toEqual(['/items/a', '/v2/items/a']);
        expect(written).toBeLessThan(64 * 1024 * 1024);
      } finally {
        await transport.close();
      }
    },
  );
});
