import { bearerToken, defineAction, defineConnector } from '@plugboard/sdk';
import { z } from 'zod';

/** A connector for the executor's tests, run against a local server. */

export const Item = z.object({ id: z.string(), name: z.string(), updated_at: z.string() }).meta({ id: 'RuntimeItem' });
export const Order = z.object({ order_id: z.string(), amount: z.string() }).meta({ id: 'RuntimeOrder' });
export const Job = z.object({ job_id: z.string(), state: z.string() }).meta({ id: 'RuntimeJob' });

export const itemsList = defineAction({
  key: 'items.list',
  label: 'List items',
  direction: 'source',
  entity: Item,
  input: z.object({ limit: z.number().int().min(1).max(100).default(3) }),
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

/** Billable, approval before production, never retried. */
export const ordersCreate = defineAction({
  key: 'orders.create',
  label: 'Place an order',
  direction: 'destination',
  entity: Order,
  billable: true,
  retry: 'never',
  approval: 'production',
  input: z.object({ sku: z.string().min(1), quantity: z.number().int().positive() }),
  async write(ctx, input) {
    return ctx.http.post('/orders', input);
  },
});

/** Needs an approval in every environment. */
export const refundsCreate = defineAction({
  key: 'refunds.create',
  label: 'Refund an order',
  direction: 'destination',
  entity: Order,
  billable: true,
  retry: 'never',
  approval: 'always',
  input: z.object({ order_id: z.string() }),
  async write(ctx, input) {
    return ctx.http.post('/refunds', input);
  },
});

/** Safe to repeat: a failed run's key may run again. */
export const quotesCreate = defineAction({
  key: 'quotes.create',
  label: 'Price a quote',
  direction: 'destination',
  entity: Order,
  retry: 'safe',
  input: z.object({ sku: z.string() }),
  async write(ctx, input) {
    return ctx.http.post('/quotes', input);
  },
});

/** A long job reporting progress, then waiting on a slow answer. */
export const jobsRun = defineAction({
  key: 'jobs.run',
  label: 'Run a job',
  direction: 'destination',
  entity: Job,
  retry: 'never',
  input: z.object({ steps: z.number().int().min(0).default(2) }),
  async write(ctx, input) {
    for (let step = 1; step <= input.steps; step += 1) ctx.progress({ label: 'Working', done: step, total: input.steps, percent: Math.round((step / input.steps) * 100) });
    return ctx.http.post('/jobs', input);
  },
});

export const shop = defineConnector({
  key: 'shop',
  name: 'Shop',
  version: '1.2.0',
  vendor: null,
  category: 'developer',
  status: 'beta',
  summary: 'A connector for the runtime tests.',
  auth: bearerToken(),
  rateLimits: { default: { limit: 1000, per: 'second' } },
  actions: [itemsList, ordersCreate, refundsCreate, quotesCreate, jobsRun],
});
