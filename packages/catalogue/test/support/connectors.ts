import { apiKeyHeader, bearerToken, type Connector, defineAction, defineConnector } from '@plugboard/sdk';
import { z } from 'zod';

/** Small connectors built with the SDK, as a pack would hold them. */

export const Money = z
  .object({ amount: z.string().describe('Decimal amount'), currency: z.string().length(3) })
  .meta({ id: 'Money', description: 'An amount in a currency.' });

export const Item = z
  .object({
    id: z.string().describe('Item id'),
    name: z.string(),
    price: Money,
    tags: z.array(z.string()).max(10),
    dimensions: z.object({ width: z.number(), height: z.number() }).optional(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'Item', description: 'A thing the shop sells.' });

export const Order = z
  .object({
    order_id: z.string(),
    status: z.enum(['placed', 'paid', 'shipped']),
    total: Money,
    lines: z.array(z.object({ item_id: z.string(), quantity: z.number().int().min(1) })),
    note: z.string().nullable(),
  })
  .meta({ id: 'Order', description: 'An order placed with the shop.' });

export const itemsList = defineAction({
  key: 'items.list',
  label: 'List items',
  description: 'Items of the shop, newest changes last.',
  direction: 'source',
  entity: Item,
  input: z.object({ name: z.string().optional(), pageSize: z.number().int().default(50) }),
  incremental: { cursorField: 'updated_at' },
  async *read() {
    yield { records: [] };
  },
});

export const ordersCreate = defineAction({
  key: 'orders.create',
  label: 'Place an order',
  description: 'Places an order; charges the customer.',
  direction: 'destination',
  entity: Order,
  billable: true, // so never retried, and approved before production
  input: z.object({
    lines: z.array(z.object({ item_id: z.string(), quantity: z.number().int() })),
    note: z.string().optional(),
  }),
  async write() {
    return {
      order_id: 'o1',
      status: 'placed' as const,
      total: { amount: '1.00', currency: 'EUR' },
      lines: [],
      note: null,
    };
  },
});

export const shop: Connector = defineConnector({
  key: 'shop',
  name: 'Shop',
  version: '1.2.0',
  vendor: 'Shop Inc.',
  category: 'crm',
  status: 'beta',
  summary: 'Items and orders of a web shop.',
  documentationUrl: 'https://shop.invalid/docs',
  auth: [bearerToken(), apiKeyHeader('X-Api-Key')],
  baseUrl: 'https://shop.invalid/api',
  rateLimits: {
    default: { limit: 10, per: 'second' },
    'orders.create': { limit: 60, per: 'minute', scope: 'connector' },
  },
  limitations: ['Refunds are not offered on purpose.'],
  actions: [ordersCreate, itemsList],
});

export const Note = z
  .object({ id: z.string(), title: z.string(), body: z.string(), created: z.iso.datetime() })
  .meta({ id: 'Note', description: 'A note.' });

export const NoteExport = z
  .object({ id: z.string(), url: z.url(), format: z.enum(['md', 'pdf']) })
  .meta({ id: 'NoteExport' });

export const notes: Connector = defineConnector({
  key: 'notes',
  name: 'Notes',
  version: '0.3.0',
  vendor: null,
  category: 'productivity',
  status: 'alpha',
  summary: 'Notes of a note-taking app.',
  documentationUrl: null,
  auth: apiKeyHeader('X-Notes-Key'),
  actions: [
    defineAction({
      key: 'notes.list',
      label: 'List notes',
      direction: 'source',
      entity: Note,
      input: z.object({ folder: z.string().optional() }),
      async *read() {
        yield { records: [] };
      },
    }),
    // Declared, not yet implemented.
    defineAction({
      key: 'notes.export',
      label: 'Export a note',
      description: 'Exports one note as Markdown or PDF.',
      direction: 'destination',
      entity: NoteExport,
      input: z.object({ id: z.string(), format: z.enum(['md', 'pdf']).default('md') }),
    }),
  ],
});

export const Clip = z
  .object({ clip_id: z.string(), duration_seconds: z.number(), state: z.enum(['queued', 'ready']) })
  .meta({ id: 'Clip', description: 'A rendered clip.' });

export const clips: Connector = defineConnector({
  key: 'clips',
  name: 'Clips',
  version: '2.0.0',
  vendor: 'Clip Studio',
  category: 'media',
  status: 'stable',
  summary: 'Renders short video clips.',
  documentationUrl: 'https://clips.invalid/api',
  auth: bearerToken(),
  baseUrl: 'https://clips.invalid/v1',
  rateLimits: { 'clips.render': { limit: 100, per: 'hour' } },
  limitations: ['Clips longer than ten minutes are refused.', 'No deletion.'],
  actions: [
    defineAction({
      key: 'clips.render',
      label: 'Render a clip',
      direction: 'destination',
      entity: Clip,
      approval: 'always',
      input: z.object({ source_url: z.url(), start: z.number().min(0), end: z.number() }),
      async write() {
        return { clip_id: 'c1', duration_seconds: 1, state: 'queued' as const };
      },
    }),
  ],
});

export const PACK: ReadonlyMap<string, Connector> = new Map([
  [shop.key, shop],
  [notes.key, notes],
  [clips.key, clips],
]);
