import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { API_VERSION } from '../src/constants.js';
import { assertValidEntry, CatalogueValidationError, entryProblems } from '../src/public-connector-schema.js';
import { type CatalogueEntry, secretProblems } from '../src/entry.js';
import { generateCatalogue, publicConnectorSchema } from '../src/index.js';
import { basicAuth, defineConnector, oauth2AuthorizationCode } from '@plugboard/sdk';
import { credentialSchema, catalogueEntry } from '@plugboard/sdk/host';
import { PACK, shop as shopConnector } from './support/connectors.js';

const keySchema = credentialSchema({ type: 'bearer', id: 'bearer' });
import { readJson, snapshot, tempDir } from './support/run.js';

const FIXED = '2026-10-01T08:00:00.000Z';

describe('plugboard catalogue --out DIR', () => {
  it('writes one valid PublicConnector per connector, the index, schemas, types, OpenAPI and the site', async () => {
    const outDir = await tempDir();
    const catalogue = await generateCatalogue({ connectors: PACK, outDir, generatedAt: FIXED });
    expect(catalogue.written).toEqual([
      'connectors/clips.json',
      'connectors/notes.json',
      'connectors/shop.json',
      'index.html',
      'index.json',
      'openapi.json',
      'schemas/clips/Clip.json',
      'schemas/clips/inputs/clips.render.json',
      'schemas/notes/Note.json',
      'schemas/notes/NoteExport.json',
      'schemas/notes/inputs/notes.export.json',
      'schemas/notes/inputs/notes.list.json',
      'schemas/shop/Item.json',
      'schemas/shop/Order.json',
      'schemas/shop/inputs/items.list.json',
      'schemas/shop/inputs/orders.create.json',
      'types/clips.d.ts',
      'types/notes.d.ts',
      'types/shop.d.ts',
    ]);
    // The spec's schema, in its open (published) form, checked by a fresh validator.
    const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true, strict: false });
    const validate = ajv.compile(publicConnectorSchema('open'));
    for (const key of ['shop', 'notes', 'clips']) {
      const entry = await readJson<CatalogueEntry>(join(outDir, 'connectors', `${key}.json`));
      expect(validate(entry), JSON.stringify(validate.errors)).toBe(true);
      expect(entryProblems(entry)).toEqual([]);
      for (const field of ['key', 'name', 'category', 'categoryLabel', 'summary', 'status'])
        expect(typeof entry[field as keyof CatalogueEntry]).toBe('string');
      expect(entry.vendor === null || typeof entry.vendor === 'string').toBe(true);
      expect(entry.documentationUrl === null || typeof entry.documentationUrl === 'string').toBe(true);
      expect(typeof entry.implemented).toBe('boolean');
      expect(entry.limitations.every((text) => typeof text === 'string')).toBe(true);
      for (const operation of entry.operations) {
        expect(Object.keys(operation).slice(0, 6)).toEqual([
          'key',
          'label',
          'description',
          'entity',
          'mode',
          'approvalRequired',
        ]);
        expect(['source', 'destination']).toContain(operation.mode);
        expect(typeof operation.approvalRequired).toBe('boolean');
        // Every schema reference points at a file that exists.
        await expect(readFile(join(outDir, operation.inputSchema as string), 'utf8')).resolves.toContain('"$schema"');
        await expect(readFile(join(outDir, operation.entitySchema as string), 'utf8')).resolves.toContain(
          `"title": "${operation.entity}"`,
        );
      }
    }
  });

  it('takes facts from the definitions: category label, direction, approval, billable, budgets, implemented', async () => {
    const outDir = await tempDir();
    await generateCatalogue({
      connectors: PACK,
      outDir,
      generatedAt: FIXED,
      packages: { shop: '@acme/shop-connector' },
    });
    const shop = await readJson<CatalogueEntry>(join(outDir, 'connectors/shop.json'));
    const notes = await readJson<CatalogueEntry>(join(outDir, 'connectors/notes.json'));
    const clips = await readJson<CatalogueEntry>(join(outDir, 'connectors/clips.json'));
    expect(shop.categoryLabel).toBe('CRM & sales');
    expect(notes.categoryLabel).toBe('Productivity');
    expect(clips.categoryLabel).toBe('Media & video');
    expect(shop.package).toBe('@acme/shop-connector');
    expect(notes.package).toBe('@plugboard/connector-notes');
    expect(shop.operations.map((operation) => [operation.key, operation.mode, operation.entity])).toEqual([
      ['items.list', 'source', 'Item'],
      ['orders.create', 'destination', 'Order'],
    ]);
    const [list, create] = shop.operations;
    expect(list).toMatchObject({
      approvalRequired: false,
      billable: false,
      retry: 'safe',
      incremental: { cursorField: 'updated_at' },
      rateBudget: 'default',
    });
    expect(create).toMatchObject({
      approvalRequired: true,
      approval: 'production',
      billable: true,
      retry: 'never',
      rateBudget: 'orders.create',
    });
    expect(clips.operations[0]).toMatchObject({
      approvalRequired: true,
      approval: 'always',
      rateBudget: 'clips.render',
    });
    // The effect, published and shown: a source reads only; a destination that declares none is taken for a destructive write.
    expect(list?.effect).toEqual({ writes: false, idempotent: true, destructive: false });
    expect(create?.effect).toEqual({ writes: true, idempotent: false, destructive: true });
    const site = await readFile(join(outDir, 'index.html'), 'utf8');
    expect(site).toMatch(/data-operation="items\.list">(?:(?!<\/tr>).)*<td>reads only<\/td>/);
    expect(site).toMatch(
      /data-operation="orders\.create">(?:(?!<\/tr>).)*<td>writes<br><span class="badge destructive">destructive<\/span><\/td>/,
    );
    expect(shop.rateLimits).toEqual({
      default: { limit: 10, per: 'second', scope: 'connection' },
      'orders.create': { limit: 60, per: 'minute', scope: 'connector' },
    });
    // A declared-but-unimplemented action makes the whole connector not implemented.
    expect(shop.implemented).toBe(true);
    expect(clips.implemented).toBe(true);
    expect(notes.implemented).toBe(false);
    expect(notes.operations.find((operation) => operation.key === 'notes.export')?.implemented).toBe(false);
    expect(notes.operations.find((operation) => operation.key === 'notes.list')?.implemented).toBe(true);
    expect(notes.vendor).toBeNull();
    expect(notes.documentationUrl).toBeNull();
    expect(notes.operations.find((operation) => operation.key === 'notes.list')?.description).toBeNull();
  });

  it('describes authentication without any secret', async () => {
    const outDir = await tempDir();
    await generateCatalogue({ connectors: PACK, outDir, generatedAt: FIXED });
    const shop = await readJson<CatalogueEntry>(join(outDir, 'connectors/shop.json'));
    expect(shop.authentication).toEqual({
      schemes: [
        { id: 'bearer', type: 'bearer', header: 'Authorization', default: true, supplies: keySchema },
        { id: 'x-api-key', type: 'api_key_header', header: 'X-Api-Key', default: false, supplies: keySchema },
      ],
      baseUrl: 'https://shop.invalid/api',
      baseUrlOverridable: true,
    });
    for (const key of ['shop', 'notes', 'clips']) {
      const entry = await readJson<CatalogueEntry>(join(outDir, 'connectors', `${key}.json`));
      expect(secretProblems(entry.authentication)).toEqual([]);
      expect(JSON.stringify(entry.authentication)).not.toMatch(/bearer\s+\S|password|secret|token"|apiKey/i);
    }
    // The schema of what a host supplies names secret parts; a value in it is still caught.
    const basic = catalogueEntry(
      defineConnector({
        ...shopConnector,

        auth: [
          basicAuth(),
          oauth2AuthorizationCode({
            authorizeUrl: 'https://shop.invalid/oauth/authorize',
            tokenUrl: 'https://shop.invalid/oauth/token',
            scopes: ['orders:write'],
          }),
        ],
      }),
    );
    expect(secretProblems(basic.authentication)).toEqual([]);
    expect(entryProblems(basic)).toEqual([]);
    expect(
      secretProblems({
        schemes: [{ type: 'basic', supplies: { properties: { password: { default: 'Bearer abcdef' } } } }],
      }),
    ).toEqual(['authentication.schemes[0].supplies.properties.password.default: the value looks like a credential']);
    // The guard itself catches what a leaked credential looks like.
    expect(
      secretProblems({
        schemes: [{ type: 'bearer', header: 'Authorization', default: true, token: 'x' }],
        baseUrl: 'https://user:pw@host.invalid',
        example: 'Bearer abcdef',
      }),
    ).toEqual([
      'authentication.schemes[0].token: a secret-like field name',
      'authentication.baseUrl: the URL carries user information',
      'authentication.example: the value looks like a credential',
    ]);
  });

  it('writes the list with the API version, the package and the entries', async () => {
    const outDir = await tempDir();
    await generateCatalogue({ connectors: PACK, outDir, generatedAt: FIXED });
    const index = await readJson<{
      apiVersion: string;
      generatedAt: string;
      generator: { name: string };
      count: number;
      connectors: CatalogueEntry[];
    }>(join(outDir, 'index.json'));
    expect(index.apiVersion).toBe('2026-10-01');
    expect(API_VERSION).toBe('2026-10-01');
    expect(index.generatedAt).toBe(FIXED);
    expect(index.generator.name).toBe('@plugboard/catalogue');
    expect(index.count).toBe(3);
    expect(index.connectors.map((entry) => entry.key)).toEqual(['clips', 'notes', 'shop']);
    expect(index.connectors[2]).toEqual(await readJson(join(outDir, 'connectors/shop.json')));
  });

  it('writes JSON Schemas of the data types (output) and of the inputs (input: defaults are optional)', async () => {
    const outDir = await tempDir();
    await generateCatalogue({ connectors: PACK, outDir, generatedAt: FIXED });
    const item = await readJson<Record<string, any>>(join(outDir, 'schemas/shop/Item.json'));
    expect(item.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(item.title).toBe('Item');
    expect(item.required).toEqual(['id', 'name', 'price', 'tags', 'updated_at']);
    expect(item.properties.price).toEqual({ $ref: '#/$defs/Money' });
    expect(item.$defs.Money.required).toEqual(['amount', 'currency']);
    const input = await readJson<Record<string, any>>(join(outDir, 'schemas/notes/inputs/notes.export.json'));
    expect(input.required).toEqual(['id']);
    expect(input.properties.format).toMatchObject({ default: 'md', enum: ['md', 'pdf'] });
    // Every schema file compiles.
    const ajv = new Ajv2020({ strict: false, allowUnionTypes: true, validateFormats: false });
    const validateItem = ajv.compile(item);
    expect(
      validateItem({
        id: '1',
        name: 'n',
        price: { amount: '1', currency: 'EUR' },
        tags: [],
        updated_at: '2026-01-01T00:00:00Z',
      }),
    ).toBe(true);
    expect(
      validateItem({ id: '1', name: 'n', price: { amount: '1' }, tags: [], updated_at: '2026-01-01T00:00:00Z' }),
    ).toBe(false);
  });

  it('refuses to write into a folder that holds something else, and replaces an earlier catalogue', async () => {
    const outDir = await tempDir();
    await writeFile(join(outDir, 'notes.txt'), 'mine');
    await expect(generateCatalogue({ connectors: PACK, outDir, generatedAt: FIXED })).rejects.toThrow(
      /not empty and holds no Plugboard catalogue/,
    );
    const catalogueDir = await tempDir();
    await generateCatalogue({ connectors: PACK, outDir: catalogueDir, generatedAt: FIXED });
    await generateCatalogue({ connectors: [PACK.get('shop')!], outDir: catalogueDir, generatedAt: FIXED });
    expect([...(await snapshot(catalogueDir)).keys()].filter((path) => path.includes('notes'))).toEqual([]);
  });
});

describe('every entry is validated against the PublicConnector schema', () => {
  const good = async () => {
    const outDir = await tempDir();
    const catalogue = await generateCatalogue({ connectors: PACK, outDir, generatedAt: FIXED });
    return structuredClone(catalogue.entries.find((entry) => entry.key === 'shop')!);
  };

  it('names the connector and the field of a broken entry', async () => {
    const entry = (await good()) as unknown as Record<string, any>;
    entry.operations[1].mode = 'sideways';
    delete entry.categoryLabel;
    entry.vendor = 42;
    expect(() => assertValidEntry(entry)).toThrow(CatalogueValidationError);
    try {
      assertValidEntry(entry);
    } catch (error) {
      const failure = error as CatalogueValidationError;
      expect(failure.connector).toBe('shop');
      expect(failure.problems).toEqual(
        expect.arrayContaining([
          { field: 'categoryLabel', message: 'is required but missing' },
          { field: 'vendor', message: 'must be of type string or null' },
          {
            field: 'operations[1].mode',
            operation: 'orders.create',
            message: 'must be one of "source", "destination", "trigger"',
          },
        ]),
      );
      expect(failure.message).toContain("catalogue entry of connector 'shop' is invalid");
      expect(failure.message).toContain("field 'operations[1].mode' (operation 'orders.create')");
      expect(failure.message).toContain("field 'categoryLabel': is required but missing");
    }
  });

  it('refuses a field the schema does not declare, and mistyped optional facts', async () => {
    const entry = (await good()) as unknown as Record<string, any>;
    entry.secretSauce = true;
    entry.operations[0].billable = 'yes';
    expect(entryProblems(entry)).toEqual([
      { field: 'operations[0].billable', operation: 'items.list', message: 'must be of type boolean' },
      { field: 'secretSauce', message: 'is not a field of PublicConnector' },
    ]);
  });

  it('makes generation fail when a connector yields a broken entry', async () => {
    const shop = PACK.get('shop')!;
    const broken = { ...shop, summary: undefined as unknown as string, key: 'broken' };
    const outDir = await tempDir();
    await expect(generateCatalogue({ connectors: [broken], outDir, generatedAt: FIXED })).rejects.toThrow(
      "catalogue entry of connector 'broken' is invalid: field 'summary': is required but missing",
    );
  });
});

describe('output is deterministic', () => {
  it('gives byte-identical folders for two runs, honouring SOURCE_DATE_EPOCH', async () => {
    const [first, second] = [await tempDir(), await tempDir()];
    const env = { SOURCE_DATE_EPOCH: '1790000000' };
    await generateCatalogue({ connectors: PACK, outDir: first, env });
    // Another order of the pack gives the same bytes.
    await generateCatalogue({ connectors: [...PACK.values()].reverse(), outDir: second, env });
    const [a, b] = [await snapshot(first), await snapshot(second)];
    expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
    for (const [path, bytes] of a) expect(bytes.equals(b.get(path)!), path).toBe(true);
    const index = await readJson<{ generatedAt: string }>(join(first, 'index.json'));
    expect(index.generatedAt).toBe(new Date(1790000000 * 1000).toISOString());
    expect(a.get('index.html')!.toString()).toContain(index.generatedAt);
    for (const [path, bytes] of a)
      if (path.endsWith('.json')) expect(bytes.toString().endsWith('}\n'), path).toBe(true);
  });

  it('uses the time now without SOURCE_DATE_EPOCH, and refuses a malformed one', async () => {
    const before = Date.now();
    const outDir = await tempDir();
    const catalogue = await generateCatalogue({ connectors: PACK, outDir, env: {} });
    expect(Date.parse(catalogue.generatedAt)).toBeGreaterThanOrEqual(before - 1000);
    await expect(
      generateCatalogue({ connectors: PACK, outDir: await tempDir(), env: { SOURCE_DATE_EPOCH: 'yesterday' } }),
    ).rejects.toThrow(/SOURCE_DATE_EPOCH/);
  });
});
