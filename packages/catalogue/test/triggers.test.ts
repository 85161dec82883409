import { join } from 'node:path';
import { defineConnector, defineTrigger, standardWebhookSignature } from '@plugboard/sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { entryProblems } from '../src/public-connector-schema.js';
import type { CatalogueEntry } from '../src/entry.js';
import { generateCatalogue } from '../src/index.js';
import { shop } from './support/connectors.js';
import { readJson, tempDir } from './support/run.js';

/** A connector's declared provider webhooks are operations of mode `trigger`, beside its actions. */

const Placed = z.object({ id: z.string(), total: z.number() }).meta({ id: 'OrderPlaced' });

const hooked = defineConnector({
  ...shop,
  key: 'hookshop',
  actions: [...shop.actions],
  triggers: [
    defineTrigger({
      key: 'orders.placed',
      label: 'Order placed',
      description: 'Each order, as the shop posts it.',
      entity: Placed,
      signature: standardWebhookSignature(),
      subscribe: async () => ({ id: 'sub' }),
      unsubscribe: async () => {},
      records: () => [],
    }),
  ],
});

describe('a trigger in the catalogue', () => {
  it('is an operation of mode trigger, with its data type and no input schema, in a valid entry', async () => {
    const outDir = await tempDir();
    const catalogue = await generateCatalogue({
      connectors: [hooked],
      outDir,
      generatedAt: '2026-10-01T08:00:00.000Z',
    });
    expect(catalogue.written).toContain('schemas/hookshop/OrderPlaced.json');
    expect(catalogue.written).not.toContain('schemas/hookshop/inputs/orders.placed.json');
    const entry = await readJson<CatalogueEntry>(join(outDir, 'connectors', 'hookshop.json'));
    expect(entryProblems(entry)).toEqual([]);
    expect(entry.operations.find((operation) => operation.key === 'orders.placed')).toEqual({
      key: 'orders.placed',
      label: 'Order placed',
      description: 'Each order, as the shop posts it.',
      entity: 'OrderPlaced',
      mode: 'trigger',
      approvalRequired: false,
      approval: 'none',
      ...(Object.hasOwn(hooked.rateLimits, 'default') ? { rateBudget: 'default' } : {}),
      implemented: true,
      entitySchema: 'schemas/hookshop/OrderPlaced.json',
    });
    expect(entry.dataTypes?.OrderPlaced).toBe('schemas/hookshop/OrderPlaced.json');
  });
});
