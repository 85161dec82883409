import { type Connector, defineAction, defineConnector } from '@plugboard/sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type CatalogueChange, diffCatalogues, formatDiff, generateCatalogue } from '../src/index.js';
import { clips, Item, itemsList, notes, Order, ordersCreate, shop } from './support/connectors.js';
import { tempDir } from './support/run.js';

const AT = '2026-10-01T00:00:00Z';

function shopWith(
  actions: Connector['actions'],
  extra: Partial<Parameters<typeof defineConnector>[0]> = {},
): Connector {
  const { action: _lookup, ...definition } = shop;
  return defineConnector({ ...definition, actions, ...extra });
}

async function catalogueOf(connectors: Connector[]): Promise<string> {
  const outDir = await tempDir('plugboard-catalogue-diff-');
  await generateCatalogue({ connectors, outDir, generatedAt: AT });
  return outDir;
}

const BASE = [shop, notes, clips];

async function changesAgainstBase(
  next: Connector[],
): Promise<{ breaking: CatalogueChange[]; additions: CatalogueChange[]; majorPackages: string[] }> {
  const diff = await diffCatalogues(await catalogueOf(BASE), await catalogueOf(next));
  return {
    breaking: diff.breaking,
    additions: diff.changes.filter((change) => !change.breaking),
    majorPackages: diff.majorPackages,
  };
}

/** The breaking changes in the short form `kind connector subject`. */
function brief(changes: CatalogueChange[]): string[] {
  return changes.map((change) =>
    [change.kind, change.connector, change.operation ?? change.entity, change.field].filter(Boolean).join(' '),
  );
}

describe('plugboard catalogue diff OLD NEW', () => {
  it('finds nothing between two runs of the same pack', async () => {
    const diff = await diffCatalogues(await catalogueOf(BASE), await catalogueOf(BASE));
    expect(diff.changes).toEqual([]);
    expect(formatDiff(diff)).toBe(
      'catalogue diff: 0 breaking changes, 0 non-breaking changes\nno major changeset needed\n',
    );
  });

  it('breaking: an operation removed', async () => {
    const { breaking, majorPackages } = await changesAgainstBase([shopWith([itemsList]), notes, clips]);
    expect(brief(breaking)).toEqual(['operation-removed shop orders.create']);
    expect(breaking[0]?.message).toBe("operation 'orders.create' was removed");
    expect(majorPackages).toEqual(['@plugboard/connector-shop']);
  });

  it('breaking: an operation renamed', async () => {
    const renamed = defineAction({ ...itemsList, key: 'items.read' });
    const { breaking, additions } = await changesAgainstBase([shopWith([renamed, ordersCreate]), notes, clips]);
    expect(brief(breaking)).toEqual(['operation-renamed shop items.list']);
    expect(breaking[0]).toMatchObject({
      from: 'items.list',
      to: 'items.read',
      message: "operation 'items.list' was renamed to 'items.read'",
    });
    expect(additions).toEqual([]);
  });

  it('breaking: the mode of an operation changed', async () => {
    const { action: _lookup, ...definition } = clips;
    const render = clips.action('clips.render')!;
    const asSource = defineAction({
      key: render.key,
      label: render.label,
      direction: 'source',
      entity: render.entity,
      input: render.input,
      approval: 'always',
      async *read() {
        yield { records: [] };
      },
    });
    const { breaking } = await changesAgainstBase([
      shop,
      notes,
      defineConnector({ ...definition, actions: [asSource] }),
    ]);
    expect(brief(breaking)).toEqual(['mode-changed clips clips.render']);
    expect(breaking[0]).toMatchObject({ from: 'destination', to: 'source', package: '@plugboard/connector-clips' });
  });

  it('breaking: the entity of an operation changed', async () => {
    const Product = Item.extend({ sku: z.string().optional() }).meta({ id: 'Product' });
    const products = defineAction({ ...itemsList, entity: Product });
    const { breaking } = await changesAgainstBase([shopWith([products, ordersCreate]), notes, clips]);
    expect(brief(breaking)).toEqual(['entity-changed shop items.list']);
    expect(breaking[0]).toMatchObject({
      from: 'Item',
      to: 'Product',
      message: "operation 'items.list' changed entity from Item to Product",
    });
  });

  it('breaking: approval turned off, or narrowed from always to production', async () => {
    const unapproved = defineAction({ ...ordersCreate, billable: false, approval: 'none' });
    const { action: _lookup, ...definition } = clips;
    const render = defineAction({ ...(clips.action('clips.render') as typeof ordersCreate), approval: 'production' });
    const { breaking } = await changesAgainstBase([
      shopWith([itemsList, unapproved]),
      notes,
      defineConnector({ ...definition, actions: [render] }),
    ]);
    expect(brief(breaking)).toEqual([
      'approval-turned-off clips clips.render',
      'approval-turned-off shop orders.create',
    ]);
    expect(breaking.map((change) => change.message)).toEqual([
      "operation 'clips.render' requires approval only before production now (was always)",
      "operation 'orders.create' no longer requires approval",
    ]);
  });

  it('breaking: a required input field added (a new one, or an optional one made required)', async () => {
    const stricter = defineAction({
      ...itemsList,
      input: z.object({ name: z.string(), pageSize: z.number().int().default(50), store: z.string() }),
    });
    const nested = defineAction({
      ...ordersCreate,
      input: z.object({
        lines: z.array(z.object({ item_id: z.string(), quantity: z.number().int(), warehouse: z.string() })),
        note: z.string().optional(),
      }),
    });
    const { breaking } = await changesAgainstBase([shopWith([stricter, nested]), notes, clips]);
    expect(brief(breaking)).toEqual([
      'required-input-added shop items.list name',
      'required-input-added shop items.list store',
      'required-input-added shop orders.create lines[].warehouse',
    ]);
    expect(breaking[1]?.message).toBe("operation 'items.list' requires the input field 'store'");
  });

  it('breaking: a field removed from a data type, also inside a nested named type', async () => {
    // Same ids, fewer fields: the catalogue of the next version of the connector. (Each schema keeps its own
    // metadata, so the original Item and Money still carry their ids for the other tests.)
    const SlimMoney = z.object({ amount: z.string() }).meta({ id: 'Money' });
    const SlimItem = z
      .object({ id: z.string(), price: SlimMoney, tags: z.array(z.string()).max(10), updated_at: z.iso.datetime() })
      .meta({ id: 'Item' });
    const SlimOrder = Order.extend({ total: SlimMoney }).meta({ id: 'Order' });
    const before = await catalogueOf(BASE);
    const after = await catalogueOf([
      shopWith([
        defineAction({ ...itemsList, entity: SlimItem }),
        defineAction({ ...ordersCreate, entity: SlimOrder }),
      ]),
      notes,
      clips,
    ]);
    const diff = await diffCatalogues(before, after);
    expect(brief(diff.breaking)).toEqual([
      'field-removed shop Item dimensions',
      'field-removed shop Item name',
      'field-removed shop Item price.currency',
      'field-removed shop Order total.currency',
    ]);
    expect(diff.breaking[1]?.message).toBe("field 'name' was removed from data type 'Item'");
  });

  it('breaking: a connector removed', async () => {
    const { breaking, majorPackages } = await changesAgainstBase([shop, clips]);
    expect(brief(breaking)).toEqual(['connector-removed notes']);
    expect(majorPackages).toEqual(['@plugboard/connector-notes']);
  });

  it('not breaking: a new operation, a new optional input field, a new data-type field, a new connector', async () => {
    const Wider = Item.extend({ colour: z.string().optional(), stock: z.number() }).meta({ id: 'Item' });
    const wider = defineAction({
      ...itemsList,
      entity: Wider,
      input: z.object({
        name: z.string().optional(),
        pageSize: z.number().int().default(50),
        since: z.string().optional(),
      }),
    } as unknown as typeof itemsList);
    const refund = defineAction({ ...ordersCreate, key: 'refunds.create', label: 'Refund an order' });
    const extra = defineConnector({ ...notes, key: 'notes2', name: 'Notes 2', actions: notes.actions });
    const before = await catalogueOf(BASE);
    const after = await catalogueOf([shopWith([wider, ordersCreate, refund]), notes, clips, extra]);
    const diff = await diffCatalogues(before, after);
    expect(diff.breaking).toEqual([]);
    expect(diff.majorPackages).toEqual([]);
    expect(brief(diff.changes)).toEqual([
      'operation-added shop refunds.create',
      'optional-input-added shop items.list since',
      'field-added shop Item colour',
      'field-added shop Item stock',
      'connector-added notes2',
    ]);
    const text = formatDiff(diff);
    expect(text).toContain('catalogue diff: 0 breaking changes, 5 non-breaking changes');
    expect(text).toContain("added operation-added shop refunds.create: operation 'refunds.create' was added");
    expect(text).toContain('no major changeset needed');
  });

  it('formats one line per breaking change and the package that needs a major changeset', async () => {
    const before = await catalogueOf(BASE);
    const after = await catalogueOf([shopWith([itemsList], { version: '2.0.0' }), notes, clips]);
    const diff = await diffCatalogues(before, after);
    expect(formatDiff(diff)).toBe(
      [
        'catalogue diff: 1 breaking change, 0 non-breaking changes',
        "BREAKING operation-removed shop orders.create: operation 'orders.create' was removed",
        'major changeset needed: @plugboard/connector-shop (1 breaking change)',
        '',
      ].join('\n'),
    );
    expect(diff).toMatchObject({
      majorPackages: ['@plugboard/connector-shop'],
      breaking: [{ kind: 'operation-removed' }],
    });
  });

  it('names the package the entry was published in', async () => {
    const before = await tempDir();
    const after = await tempDir();
    await generateCatalogue({ connectors: BASE, outDir: before, generatedAt: AT, packages: { shop: '@acme/shop' } });
    await generateCatalogue({
      connectors: [shopWith([itemsList]), notes, clips],
      outDir: after,
      generatedAt: AT,
      packages: { shop: '@acme/shop' },
    });
    expect((await diffCatalogues(before, after)).majorPackages).toEqual(['@acme/shop']);
  });
});
