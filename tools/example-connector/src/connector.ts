import {
  bearerToken,
  defineAction,
  defineConnector,
  type DestinationAction,
  oauth2AuthorizationCode,
} from '@plugboard/sdk';
import { z } from 'zod';

/**
 * `shop`: a paged, incremental source and the kinds of destination an executor treats
 * differently (billable with approval in production, approval always, safe to repeat,
 * a long job reporting progress). A connection authenticates with a bearer token (the
 * default) or signs in with OAuth2 (`authScheme: 'oauth2'`) at the authorization server
 * `SHOP_OAUTH_ISSUER` names when the connector is loaded (a test's, on 127.0.0.1).
 */

export const Item = z.object({ id: z.string(), name: z.string(), updated_at: z.string() }).meta({ id: 'ShopItem' });
export const Order = z.object({ order_id: z.string(), amount: z.string() }).meta({ id: 'ShopOrder' });
export const Job = z.object({ job_id: z.string(), state: z.string() }).meta({ id: 'ShopJob' });

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

/** A destination that posts its input to `path` and returns the provider's order. */
function postsOrder<I extends z.ZodType>(
  path: string,
  action: Omit<DestinationAction<I, typeof Order>, 'direction' | 'entity' | 'write'>,
) {
  return defineAction<I, typeof Order>({
    ...action,
    direction: 'destination',
    entity: Order,
    async write(ctx, input) {
      return ctx.http.post(path, input);
    },
  });
}

/** A billable write: approval before production, never retried, both from `billable`. */
export const ordersCreate = postsOrder('/orders', {
  key: 'orders.create',
  label: 'Place an order',
  effect: { writes: true, idempotent: false, destructive: false },
  billable: true,
  input: z.object({ sku: z.string().min(1), quantity: z.number().int().positive() }),
});

/** Needs an approval in every environment. */
export const refundsCreate = postsOrder('/refunds', {
  key: 'refunds.create',
  label: 'Refund an order',
  effect: { writes: true, idempotent: false, destructive: false },
  billable: true,
  approval: 'always',
  input: z.object({ order_id: z.string() }),
});

/** Reads only, so safe to repeat: a failed run's key may run again. */
export const quotesCreate = postsOrder('/quotes', {
  key: 'quotes.create',
  label: 'Price a quote',
  effect: 'read',
  input: z.object({ sku: z.string() }),
});

/** A long job reporting progress, then waiting on a slow answer. */
export const jobsRun = defineAction({
  key: 'jobs.run',
  label: 'Run a job',
  direction: 'destination',
  effect: { writes: true, idempotent: false, destructive: false },
  entity: Job,
  input: z.object({ steps: z.number().int().min(0).default(2) }),
  async write(ctx, input) {
    for (let step = 1; step <= input.steps; step += 1)
      ctx.progress({
        label: 'Working',
        done: step,
        total: input.steps,
        percent: Math.round((step / input.steps) * 100),
      });
    return ctx.http.post('/jobs', input);
  },
});

/** The shop whose OAuth2 sign-in is at `issuer`'s `/auth` and `/token` (a test's authorization server). */
export function shopAt(issuer: string) {
  return defineConnector({
    key: 'shop',
    name: 'Shop',
    version: '1.2.0',
    vendor: null,
    category: 'developer',
    status: 'beta',
    summary: 'Items, orders and jobs of a small shop, for the runtime and CLI tests.',
    auth: [
      bearerToken(),
      oauth2AuthorizationCode({
        id: 'oauth2',
        authorizeUrl: `${issuer}/auth`,
        tokenUrl: `${issuer}/token`,
        scopes: ['items:read'],
      }),
    ],
    // Who the credential speaks for: the cheapest call the provider answers only with a valid one.
    async check(ctx) {
      await ctx.http.get('/me');
    },
    rateLimits: { default: { limit: 1000, per: 'second' } },
    actions: [itemsList, ordersCreate, refundsCreate, quotesCreate, jobsRun],
  });
}

/** The shop signing in where `SHOP_OAUTH_ISSUER` names when the connector is loaded. */
export const shop = shopAt(process.env.SHOP_OAUTH_ISSUER ?? 'https://auth.shop.example');

/** The plugin entry (package.json's `plugboard.connector`). */
export default shop;
