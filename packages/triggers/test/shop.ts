import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearerToken, defineAction, defineConnector } from '@plugboard/sdk';
import { z } from 'zod';

/**
 * What the run tests share: a small provider that imports orders (started on 127.0.0.1:0), the
 * connector that writes to it (`orders.import`, a destination) and reads from it (`orders.list`),
 * a trigger's `run` on it, and a delivery of two orders.
 */

export const TOKEN = 'provider-token-7c1e5a9d3b';

/** A provider that imports orders: it keeps each import's records and the headers it came with. */
export async function startProvider() {
  const imports: Array<{ authorization: string | undefined; key: string | undefined; records: unknown[] }> = [];
  let requests = 0;
  const server = createServer((request, response) => {
    requests += 1;
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => {
      const { records } = JSON.parse(text) as { records: unknown[] };
      const key = request.headers['idempotency-key'];
      imports.push({
        authorization: request.headers.authorization,
        key: typeof key === 'string' ? key : undefined,
        records,
      });
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ id: `imp_${imports.length}`, imported: records.length }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    imports,
    get requests() {
      return requests;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const Order = z.object({ id: z.string(), total: z.number() });
const Import = z.object({ id: z.string(), imported: z.number() }).meta({ id: 'OrderImport' });

export const shop = defineConnector({
  key: 'shop',
  name: 'Shop',
  version: '1.0.0',
  vendor: null,
  category: 'developer',
  status: 'beta',
  summary: 'Orders imported from deliveries.',
  auth: bearerToken(),
  actions: [
    defineAction({
      key: 'orders.import',
      label: 'Import orders',
      direction: 'destination',
      entity: Import,
      effect: { writes: true, idempotent: true, destructive: false },
      idempotencyHeader: 'Idempotency-Key',
      input: z.object({ records: z.array(Order).min(1) }),
      write: (ctx, input) => ctx.http.post<z.infer<typeof Import>>('/orders/import', input),
    }),
    defineAction({
      key: 'orders.list',
      label: 'List orders',
      direction: 'source',
      entity: Order.meta({ id: 'Order' }),
      input: z.object({ records: z.array(Order).optional() }),
      async *read(ctx) {
        yield { records: await ctx.http.get<Array<z.infer<typeof Order>>>('/orders') };
      },
    }),
  ],
});

export const RUN = (url: string) => ({
  run: { connector: 'shop', action: 'orders.import', connection: { id: 'shop-main', baseUrl: url } },
});
export const ORDERS = {
  type: 'orders.paid',
  records: [
    { id: 'o1', total: 10 },
    { id: 'o2', total: 32 },
  ],
};
