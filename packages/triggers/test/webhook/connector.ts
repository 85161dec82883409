import { bearerToken, defineAction, defineConnector, defineTrigger, standardWebhookSignature } from '@plugboard/sdk';
import { z } from 'zod';

/**
 * A small connector of the provider in provider.ts: its trigger subscribes with `POST /webhooks`,
 * renews with `PATCH /webhooks/:id` and ends with `DELETE /webhooks/:id`; each event's orders are
 * its records, which `orders.import` writes back to the provider. `orders.offered` subscribes
 * alike but offers the kit's secret, which the provider answers back.
 */

const Order = z.object({ id: z.string(), total: z.number() }).meta({ id: 'HooksOrder' });
const Subscription = z.object({ id: z.string(), expiresAt: z.string(), secret: z.string() });

const ordersCreated = defineTrigger({
  key: 'orders.created',
  label: 'Order created',
  description: 'Each order placed, as the provider posts it.',
  entity: Order,
  signature: standardWebhookSignature(),
  async subscribe(ctx, target) {
    const made = await ctx.http.post<z.infer<typeof Subscription>>('/webhooks', {
      url: target.url,
      events: ['order.created'],
    });
    return { id: made.id, expiresAt: made.expiresAt, secret: made.secret };
  },
  async renew(ctx, subscription) {
    const renewed = await ctx.http.request<{ expiresAt: string }>({
      method: 'PATCH',
      path: '/webhooks/{id}',
      params: { id: subscription.id },
      json: {},
    });
    return renewed.data.expiresAt;
  },
  async unsubscribe(ctx, subscription) {
    await ctx.http.request({ method: 'DELETE', path: '/webhooks/{id}', params: { id: subscription.id } });
  },
  records: ({ body }) => (Array.isArray(body.orders) ? body.orders : []),
});

/** The same events, subscribed with the secret the kit offers (which the provider answers back). */
const ordersOffered = defineTrigger({
  ...ordersCreated,
  key: 'orders.offered',
  label: 'Order created (our secret)',
  async subscribe(ctx, target) {
    const made = await ctx.http.post<z.infer<typeof Subscription>>('/webhooks', {
      url: target.url,
      events: ['order.created'],
      secret: target.secret,
    });
    return { id: made.id, expiresAt: made.expiresAt, secret: made.secret };
  },
});

export const hooks = defineConnector({
  key: 'hooks',
  name: 'Hooks',
  version: '1.0.0',
  vendor: null,
  category: 'developer',
  status: 'beta',
  summary: 'Orders posted by the provider as they are placed.',
  auth: bearerToken(),
  actions: [
    defineAction({
      key: 'orders.import',
      label: 'Import orders',
      direction: 'destination',
      entity: z.object({ imported: z.number() }).meta({ id: 'HooksImport' }),
      effect: { writes: true, idempotent: true, destructive: false },
      input: z.object({ records: z.array(Order) }),
      write: (ctx, input) => ctx.http.post<{ imported: number }>('/orders/import', input),
    }),
  ],
  triggers: [ordersCreated, ordersOffered],
});
