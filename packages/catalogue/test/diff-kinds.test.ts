import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  apiKeyHeader,
  apiKeyQuery,
  type Connector,
  defineAction,
  defineConnector,
  oauth2ClientCredentials,
} from '@plugboard/sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type CatalogueChange,
  CatalogueMismatchError,
  diffCatalogues,
  formatDiff,
  generateCatalogue,
} from '../src/index.js';
import { Item, itemsList, Order, ordersCreate, shop } from './support/connectors.js';
import { tempDir } from './support/run.js';

const AT = '2026-10-01T00:00:00Z';

type ShopDefinition = Parameters<typeof defineConnector>[0];

function shopWith(actions: Connector['actions'], extra: Partial<ShopDefinition> = {}): Connector {
  const { action: _lookup, ...definition } = shop;
  return defineConnector({ ...definition, actions, ...extra });
}

async function catalogueOf(connectors: Connector[]): Promise<string> {
  const outDir = await tempDir('plugboard-catalogue-kinds-');
  await generateCatalogue({ connectors, outDir, generatedAt: AT });
  return outDir;
}

/** `kind subject field` of each change, and the verdict, for the shop connector changed from `before` to `after`. */
async function changes(before: Connector, after: Connector): Promise<string[]> {
  const diff = await diffCatalogues(await catalogueOf([before]), await catalogueOf([after]));
  return diff.changes.map(brief);
}

function brief(change: CatalogueChange): string {
  return [change.breaking ? 'BREAKING' : 'ok', change.kind, change.operation ?? change.entity, change.field]
    .filter(Boolean)
    .join(' ');
}

/** The items.list action with another data type and input. */
function items(entity: z.ZodType, input: z.ZodType = itemsList.input): typeof itemsList {
  return defineAction({ ...itemsList, entity, input } as unknown as typeof itemsList);
}

function orders(input: z.ZodType, entity: z.ZodType = Order): typeof ordersCreate {
  return defineAction({ ...ordersCreate, input, entity } as unknown as typeof ordersCreate);
}

describe('catalogue diff: each kind of change and its verdict', () => {
  it("input options: the input schema says where a field's options come from, never values; removing them breaks, adding or changing them does not", async () => {
    const list = async () => ({ items: [{ value: 'secret-looking-value', label: 'A' }] });
    const named = (options: unknown) => defineAction({ ...itemsList, options } as unknown as typeof itemsList);
    const picked = named({ name: { from: 'the item names', searchable: true, list } });
    const outDir = await catalogueOf([shopWith([picked, ordersCreate])]);
    const text = await readFile(join(outDir, 'schemas/shop/inputs/items.list.json'), 'utf8');
    expect(JSON.parse(text).properties.name['x-plugboard-options']).toEqual({
      from: 'the item names',
      search: 'provider',
    });
    expect(text).not.toContain('secret-looking-value');

    expect(await changes(shop, shopWith([picked, ordersCreate]))).toEqual(['ok input-options-added items.list name']);
    expect(await changes(shopWith([picked, ordersCreate]), shop)).toEqual([
      'BREAKING input-options-removed items.list name',
    ]);
    const byLabel = named({ name: { from: 'the item names', list } });
    const diff = await diffCatalogues(
      await catalogueOf([shopWith([picked, ordersCreate])]),
      await catalogueOf([shopWith([byLabel, ordersCreate])]),
    );
    expect(diff.changes.map(brief)).toEqual(['ok input-options-changed items.list name']);
    expect(diff.changes[0]?.message).toBe(
      "operation 'items.list' input field 'name' lists its options from the item names, searched by label (was from the item names, searched by the provider)",
    );
  });

  it('the three breaking changes of one release: a data-type field retyped, approval and billing on for a source, an input field removed', async () => {
    const Retyped = Item.extend({ id: z.number() }).meta({ id: 'Item' });
    const gated = defineAction({
      ...items(Retyped),
      approval: 'always',
      billable: true,
    } as unknown as typeof itemsList);
    const noNote = orders(z.object({ lines: z.array(z.object({ item_id: z.string(), quantity: z.number().int() })) }));
    const before = await catalogueOf([shop]);
    const after = await catalogueOf([shopWith([gated, noNote])]);
    const diff = await diffCatalogues(before, after);
    expect(diff.breaking.map(brief)).toEqual([
      'BREAKING approval-turned-on items.list',
      'BREAKING billable-turned-on items.list',
      'BREAKING field-removed orders.create note',
      'BREAKING type-changed Item id',
    ]);
    expect(diff.breaking.find((change) => change.kind === 'type-changed')).toMatchObject({
      from: 'string',
      to: 'number',
    });
    expect(diff.majorPackages).toEqual(['@plugboard/connector-shop']);
    expect(formatDiff(diff)).toContain('catalogue diff: 4 breaking changes');
  });

  it('data types (read by consumers): removed, renamed, made optional, widened, retyped fields break; added fields do not', async () => {
    const Changed = z
      .object({
        id: z.string().describe('Item id'),
        title: z.string(), // name renamed to title
        price: Item.shape.price,
        tags: z.array(z.string()).max(10),
        dimensions: z.object({ width: z.number(), height: z.union([z.number(), z.string()]) }).optional(),
        updated_at: z.iso.datetime().optional(),
        stock: z.number(),
      })
      .meta({ id: 'Item' });
    expect(await changes(shop, shopWith([items(Changed), ordersCreate]))).toEqual([
      'BREAKING type-widened Item dimensions.height',
      'BREAKING field-removed Item name',
      'BREAKING field-made-optional Item updated_at',
      'ok field-added Item stock',
      'ok field-added Item title',
    ]);
  });

  it('data types: a new or a dropped enum value, or a looser limit or format, breaks consumers; a tighter limit does not', async () => {
    const StatusPlus = Order.extend({ status: z.enum(['placed', 'paid', 'shipped', 'cancelled']) }).meta({
      id: 'Order',
    });
    expect(await changes(shop, shopWith([itemsList, orders(ordersCreate.input, StatusPlus)]))).toEqual([
      'BREAKING enum-value-added Order status',
    ]);
    const StatusLess = Order.extend({ status: z.enum(['placed', 'paid']) }).meta({ id: 'Order' });
    expect(await changes(shop, shopWith([itemsList, orders(ordersCreate.input, StatusLess)]))).toEqual([
      'BREAKING enum-value-removed Order status',
    ]);
    const Looser = Item.extend({ tags: z.array(z.string()).max(20), updated_at: z.string() }).meta({ id: 'Item' });
    expect(await changes(shop, shopWith([items(Looser), ordersCreate]))).toEqual([
      'BREAKING limit-loosened Item tags',
      'BREAKING format-changed Item updated_at',
    ]);
    const Tighter = Item.extend({ tags: z.array(z.string()).max(5) }).meta({ id: 'Item' });
    expect(await changes(shop, shopWith([items(Tighter), ordersCreate]))).toEqual(['ok limit-tightened Item tags']);
  });

  it('inputs (written by callers): a union losing a member, a dropped enum value, a closed object, a tighter format, pattern or limit break', async () => {
    const wide = z.object({
      name: z.union([z.string(), z.number()]).optional(),
      sort: z.enum(['asc', 'desc']),
      since: z.string(),
      code: z.string(),
      pageSize: z.number().int().max(100),
    });
    const narrow = z.strictObject({
      name: z.string().optional(),
      sort: z.enum(['asc']),
      since: z.iso.datetime(),
      code: z.string().regex(/^[a-z]+$/),
      pageSize: z.number().int().max(50),
    });
    expect(
      await changes(shopWith([items(Item, wide), ordersCreate]), shopWith([items(Item, narrow), ordersCreate])),
    ).toEqual([
      'BREAKING pattern-changed items.list code',
      'BREAKING type-narrowed items.list name',
      'BREAKING limit-tightened items.list pageSize',
      'BREAKING format-changed items.list since',
      'BREAKING enum-value-removed items.list sort',
      'BREAKING object-closed items.list',
    ]);
  });

  it('inputs: a new accepted enum value, a looser limit, a wider type and a new optional field do not break; a new required field does', async () => {
    const before = z.object({ sort: z.enum(['asc']), pageSize: z.number().int().max(50), name: z.string().optional() });
    const after = z.object({
      sort: z.enum(['asc', 'desc']),
      pageSize: z.number().int().max(100),
      name: z.union([z.string(), z.number()]).optional(),
      since: z.string().optional(),
      store: z.string(),
    });
    expect(
      await changes(shopWith([items(Item, before), ordersCreate]), shopWith([items(Item, after), ordersCreate])),
    ).toEqual([
      'ok type-widened items.list name',
      'ok limit-loosened items.list pageSize',
      'ok enum-value-added items.list sort',
      'ok optional-input-added items.list since',
      'BREAKING required-input-added items.list store',
    ]);
  });

  it('operations: approval on (or from production to always) and billing on break; billing off does not', async () => {
    const always = defineAction({ ...ordersCreate, approval: 'always', billable: false });
    expect(await changes(shop, shopWith([itemsList, always]))).toEqual([
      'BREAKING approval-turned-on orders.create',
      'ok billable-turned-off orders.create',
    ]);
  });

  it("idempotency: a provider no longer sent the run's key breaks; one sent it now does not", async () => {
    const keyed = defineAction({ ...ordersCreate, idempotencyHeader: 'Idempotency-Key' });
    expect(await changes(shop, shopWith([itemsList, keyed]))).toEqual(['ok idempotency-key-sent orders.create']);
    const diff = await diffCatalogues(await catalogueOf([shopWith([itemsList, keyed])]), await catalogueOf([shop]));
    expect(diff.changes.map(brief)).toEqual(['BREAKING idempotency-key-dropped orders.create']);
    expect(diff.breaking[0]).toMatchObject({ from: 'Idempotency-Key', to: 'none' });
  });

  it('effects: reads only to writes, idempotent to not, not destructive to destructive break; the reverse does not', async () => {
    const writingSource = defineAction({
      ...itemsList,
      effect: { writes: true, idempotent: false, destructive: false },
    });
    // orders.create says nothing of its effect: a destination is then read as a destructive, non-idempotent write.
    const gentle = defineAction({ ...ordersCreate, effect: { writes: true, idempotent: true, destructive: false } });
    expect(await changes(shop, shopWith([writingSource, ordersCreate]))).toEqual([
      'BREAKING writes-turned-on items.list',
    ]);
    expect(await changes(shopWith([writingSource, ordersCreate]), shop)).toEqual(['ok writes-turned-off items.list']);
    expect(await changes(shop, shopWith([itemsList, gentle]))).toEqual([
      'ok idempotent-turned-on orders.create',
      'ok destructive-turned-off orders.create',
    ]);
    const diff = await diffCatalogues(await catalogueOf([shopWith([itemsList, gentle])]), await catalogueOf([shop]));
    expect(diff.changes.map(brief)).toEqual([
      'BREAKING idempotent-turned-off orders.create',
      'BREAKING destructive-turned-on orders.create',
    ]);
    expect(diff.breaking[1]).toMatchObject({
      from: 'writes (idempotent)',
      to: 'writes (not idempotent, destructive)',
      message: "operation 'orders.create' is destructive now",
    });
  });

  it('rate budgets: a lower limit, a longer period or a shared scope break; a higher limit does not', async () => {
    const budgets = (rateLimits: ShopDefinition['rateLimits']) => shopWith([itemsList, ordersCreate], { rateLimits });
    const base = {
      default: { limit: 10, per: 'second' },
      'orders.create': { limit: 60, per: 'minute', scope: 'connector' },
    } as const;
    expect(await changes(shop, budgets({ ...base, default: { limit: 5, per: 'second' } }))).toEqual([
      'BREAKING rate-budget-tightened items.list',
    ]);
    expect(await changes(shop, budgets({ ...base, default: { limit: 10, per: 'minute' } }))).toEqual([
      'BREAKING rate-budget-tightened items.list',
    ]);
    expect(
      await changes(shop, budgets({ ...base, default: { limit: 10, per: 'second', scope: 'connector' } })),
    ).toEqual(['BREAKING rate-budget-tightened items.list']);
    const looser = await diffCatalogues(
      await catalogueOf([shop]),
      await catalogueOf([budgets({ ...base, default: { limit: 20, per: 'second' } })]),
    );
    expect(looser.changes.map(brief)).toEqual(['ok rate-budget-loosened items.list']);
    expect(looser.changes[0]).toMatchObject({ from: '10 per second (connection)', to: '20 per second (connection)' });
    expect(looser.majorPackages).toEqual([]);
  });

  it('authentication changed breaks', async () => {
    const diff = await diffCatalogues(
      await catalogueOf([shop]),
      await catalogueOf([shopWith([itemsList, ordersCreate], { auth: apiKeyHeader('X-Other-Key') })]),
    );
    expect(diff.changes.map(brief)).toEqual(['BREAKING authentication-changed']);
    expect(diff.breaking[0]?.message).toBe("connector 'shop' changed its authentication");
  });

  it.each([
    [
      'a prefix',
      apiKeyHeader('Authorization', { prefix: 'Token ' }),
      apiKeyHeader('Authorization', { prefix: 'Key ' }),
    ],
    ['a query parameter', apiKeyQuery('api_key'), apiKeyQuery('key', { id: 'query:api_key' })],
    [
      'a scope',
      oauth2ClientCredentials({ tokenUrl: 'https://shop.invalid/token', scopes: ['read'] }),
      oauth2ClientCredentials({ tokenUrl: 'https://shop.invalid/token', scopes: ['read', 'write'] }),
    ],
    [
      'the client authentication',
      oauth2ClientCredentials({ tokenUrl: 'https://shop.invalid/token' }),
      oauth2ClientCredentials({ tokenUrl: 'https://shop.invalid/token', clientAuth: 'body' }),
    ],
  ])('authentication changed breaks: %s', async (_change, before, after) => {
    const diff = await diffCatalogues(
      await catalogueOf([shopWith([itemsList, ordersCreate], { auth: before })]),
      await catalogueOf([shopWith([itemsList, ordersCreate], { auth: after })]),
    );
    expect(diff.changes.map(brief)).toEqual(['BREAKING authentication-changed']);
  });
});

describe('catalogue diff reads the connector files and refuses a folder that disagrees with its index', () => {
  it('reads connectors/<key>.json: a change only there is seen', async () => {
    const before = await catalogueOf([shop]);
    const after = await catalogueOf([shop]);
    // index.json and the connector file both changed alike: an operation billable
    for (const file of ['index.json', 'connectors/shop.json']) {
      const text = await readFile(join(after, file), 'utf8');
      await writeFile(join(after, file), text.replace('"approvalRequired": false,', '"approvalRequired": true,'));
    }
    const diff = await diffCatalogues(before, after);
    expect(diff.breaking.map(brief)).toEqual(['BREAKING approval-turned-on items.list']);
  });

  it('a connector file that differs from its index entry (another version)', async () => {
    const dir = await catalogueOf([shop]);
    const path = join(dir, 'connectors/shop.json');
    await writeFile(path, (await readFile(path, 'utf8')).replace('"version": "1.2.0"', '"version": "2.0.0"'));
    const error = await diffCatalogues(dir, await catalogueOf([shop])).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CatalogueMismatchError);
    expect((error as CatalogueMismatchError).problems).toEqual([
      "connector 'shop' differs between index.json and connectors/shop.json (version 1.2.0 in index.json, 2.0.0 in the file)",
    ]);
  });

  it('a connector listed in the index without its file, and a file the index does not list', async () => {
    const dir = await catalogueOf([shop]);
    const text = await readFile(join(dir, 'connectors/shop.json'), 'utf8');
    await writeFile(join(dir, 'connectors/shop2.json'), text.replace('"key": "shop"', '"key": "shop2"'));
    await rm(join(dir, 'connectors/shop.json'));
    const error = await diffCatalogues(await catalogueOf([shop]), dir).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CatalogueMismatchError);
    expect((error as CatalogueMismatchError).problems).toEqual([
      "connector 'shop' is in index.json but connectors/shop.json is missing",
      "connectors/shop2.json (connector 'shop2') is not in index.json",
    ]);
  });

  it('a schema file the connector references is missing', async () => {
    const dir = await catalogueOf([shop]);
    await rm(join(dir, 'schemas/shop/Item.json'));
    const error = await diffCatalogues(dir, await catalogueOf([shop])).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CatalogueMismatchError);
    expect((error as Error).message).toContain('schemas/shop/Item.json is missing');
  });
});

describe('catalogue diff: a checkpoint that changed shape', () => {
  const Since = z.object({ updated_after: z.string() });
  const Cursor = z.object({ cursor: z.object({ at: z.string() }) });
  const migrated = {
    version: 2,
    schema: Cursor,
    migrate: { 1: (old: z.infer<typeof Since>) => ({ cursor: { at: old.updated_after } }) },
  };
  const keeping = (checkpoint: typeof Since | typeof migrated) =>
    shopWith([defineAction({ ...itemsList, incremental: { cursorField: 'updated_at', checkpoint } }), ordersCreate]);

  it('publishes the checkpoint version with the operation, and its schema in a file beside the inputs', async () => {
    const dir = await catalogueOf([keeping(migrated)]);
    const entry = JSON.parse(await readFile(join(dir, 'connectors', 'shop.json'), 'utf8'));
    const operation = entry.operations.find((one: { key: string }) => one.key === 'items.list');
    expect(operation.incremental).toEqual({ cursorField: 'updated_at', checkpointVersion: 2 });
    expect(operation.checkpointSchema).toBe('schemas/shop/checkpoints/items.list.json');
    expect(JSON.parse(await readFile(join(dir, operation.checkpointSchema), 'utf8'))).toMatchObject({
      title: 'ItemsListCheckpoint',
      type: 'object',
      required: ['cursor'],
    });
  });

  it('a schema changed without a new version breaks; with a new version and its migration it does not; a version lowered breaks', async () => {
    expect(await changes(keeping(Since), keeping(Cursor as unknown as typeof Since))).toEqual([
      'BREAKING checkpoint-changed-unmigrated items.list',
    ]);
    expect(await changes(keeping(Since), keeping(migrated))).toEqual(['ok checkpoint-migrated items.list']);
    expect(await changes(keeping(migrated), keeping(Since))).toEqual([
      'BREAKING checkpoint-version-lowered items.list',
    ]);
    expect(await changes(keeping(migrated), keeping(migrated))).toEqual([]);
    // A checked checkpoint where any value was accepted before is a change of its schema too.
    expect(await changes(shop, keeping(Since))).toEqual(['BREAKING checkpoint-changed-unmigrated items.list']);
  });

  it('says what changed and what it costs', async () => {
    const diff = await diffCatalogues(await catalogueOf([keeping(Since)]), await catalogueOf([keeping(migrated)]));
    expect(diff.changes).toEqual([
      expect.objectContaining({
        kind: 'checkpoint-migrated',
        from: '1',
        to: '2',
        message: "operation 'items.list' migrates its checkpoint from version 1 to version 2",
      }),
    ]);
    const lowered = await diffCatalogues(await catalogueOf([keeping(migrated)]), await catalogueOf([keeping(Since)]));
    expect(formatDiff(lowered)).toContain(
      "BREAKING checkpoint-version-lowered shop items.list: operation 'items.list' lowered its checkpoint version from 2 to 1: the checkpoints version 2 kept are refused",
    );
  });

  it('an entry from before checkpoint versions were published says nothing to compare', async () => {
    const before = await catalogueOf([keeping(Since)]);
    const file = join(before, 'connectors', 'shop.json');
    const entry = JSON.parse(await readFile(file, 'utf8'));
    for (const operation of entry.operations) {
      if (operation.incremental) delete operation.incremental.checkpointVersion;
      delete operation.checkpointSchema;
    }
    await writeFile(file, `${JSON.stringify(entry, null, 2)}\n`);
    const index = JSON.parse(await readFile(join(before, 'index.json'), 'utf8'));
    index.connectors = [entry];
    await writeFile(join(before, 'index.json'), `${JSON.stringify(index, null, 2)}\n`);
    expect(
      (await diffCatalogues(before, await catalogueOf([keeping(Cursor as unknown as typeof Since)]))).changes,
    ).toEqual([]);
  });
});
