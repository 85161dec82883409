import { z } from 'zod';
import { apiKeyHeader, bearerToken, defineAction, defineConnector, type RateBudget } from '../../src/index.js';

/** A small connector the SDK's tests run against their own server. */

export const Item = z.object({ id: z.string(), name: z.string(), updated_at: z.string() }).meta({ id: 'Item' });
export const Order = z.object({ order_id: z.string(), amount: z.string() }).meta({ id: 'Order' });

export const itemsList = defineAction({
  key: 'items.list',
  label: 'List items',
  direction: 'source',
  entity: Item,
  input: z.object({ limit: z.number().int().min(1).max(100).default(10) }),
  incremental: { cursorField: 'updated_at', checkpoint: z.object({ updated_after: z.string() }) },
  async *read(ctx, input) {
    let cursor: string | undefined;
    do {
      const page = await ctx.http.get<{ data: z.input<typeof Item>[]; next?: string }>('/items', {
        query: { limit: input.limit, cursor, updated_after: ctx.checkpoint?.updated_after },
      });
      cursor = page.next;
      const last = page.data.at(-1);
      yield { records: page.data, ...(last ? { checkpoint: { updated_after: last.updated_at } } : {}) };
    } while (cursor);
  },
});

export const itemGet = defineAction({
  key: 'items.get',
  label: 'Get an item',
  direction: 'source',
  entity: Item,
  input: z.object({ id: z.string().min(1) }),
  maxRetryAfterSeconds: 5,
  async *read(ctx, input) {
    yield { records: [await ctx.http.get('/items/{id}', { params: { id: input.id } })] };
  },
});

export const ordersCreate = defineAction({
  key: 'orders.create',
  label: 'Place an order',
  direction: 'destination',
  entity: Order,
  billable: true,
  retry: 'never',
  approval: 'production',
  input: z.object({
    customer: z.object({ email: z.email(), name: z.string().min(1) }),
    quantity: z.number().int().positive(),
    note: z.string().optional(),
  }),
  async write(ctx, input) {
    return ctx.http.post('/orders', input);
  },
});

export const example = defineConnector({
  key: 'example',
  name: 'Example',
  version: '1.0.0',
  vendor: null,
  category: 'developer',
  status: 'beta',
  summary: 'A connector for the SDK tests.',
  auth: [bearerToken(), apiKeyHeader('X-Api-Key')],
  rateLimits: { default: { limit: 1000, per: 'second' } },
  actions: [itemsList, itemGet, ordersCreate],
});

/** A connector of one `items.get` action, for the tests of a rate budget or a request timeout. */
export function itemsGetConnector(options: {
  key: string;
  name: string;
  summary: string;
  rateLimits: Record<string, RateBudget>;
  timeoutMs?: number;
}) {
  const { key, name, summary, rateLimits, timeoutMs } = options;
  return defineConnector({
    key,
    name,
    version: '1.0.0',
    vendor: null,
    category: 'developer',
    status: 'beta',
    summary,
    auth: bearerToken(),
    rateLimits,
    actions: [
      defineAction({
        key: 'items.get',
        label: 'Get',
        direction: 'source',
        entity: Item,
        input: z.object({ id: z.string() }),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        async *read(ctx, input) {
          yield { records: [await ctx.http.get('/items/{id}', { params: { id: input.id } })] };
        },
      }),
    ],
  });
}
