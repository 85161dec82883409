import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bearerToken, defineAction, defineConnector, runAction, SchemaMismatchError } from '../src/index.js';

/**
 * A source's records are its entity schema's output: a run hands on exactly what zod returns
 * for each record (defaults applied, unknown keys stripped, values transformed), and a record
 * zod refuses fails the run with the issue's path. Every case below is checked against zod
 * itself, so a shortcut that let a record through unparsed (or a zod upgrade that changed what
 * a schema does) fails here.
 */

const Project = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  created_at: z.iso.datetime({ offset: true }),
  kind: z.enum(['model', 'alias']),
  size: z.int().nonnegative().optional(),
  folder: z.string().min(1).nullable().optional(),
  tags: z.array(z.string().max(5)).max(3).optional(),
  owner: z.object({ first: z.string(), last: z.string().optional() }).optional(),
  meta: z.unknown(),
  flag: z.literal(true).optional(),
});

const good = {
  id: 'p1',
  name: 'A',
  created_at: '2026-01-01T00:00:00Z',
  kind: 'model',
  meta: null,
  extra: { any: 'thing' },
};

const values: unknown[] = [
  good,
  { ...good, size: 3, folder: null, tags: ['a', 'bb'], owner: { first: 'F' }, meta: [1, { x: 2 }], flag: true },
  { ...good, id: '' },
  { ...good, name: 7 },
  { ...good, created_at: 'yesterday' },
  { ...good, created_at: '2026-01-01T00:00:00+02:00' },
  { ...good, kind: 'other' },
  { ...good, size: 1.5 },
  { ...good, size: -1 },
  { ...good, size: Number.NaN },
  { ...good, size: Number.POSITIVE_INFINITY },
  { ...good, size: 2 ** 60 },
  { ...good, folder: '' },
  { ...good, tags: ['toolong'] },
  { ...good, tags: ['a', 'b', 'c', 'd'] },
  { ...good, tags: 'a' },
  { ...good, owner: { first: 'F', middle: 'M' } },
  { ...good, owner: null },
  { ...good, flag: false },
  JSON.parse('{"id":"p1","name":"A","created_at":"2026-01-01T00:00:00Z","kind":"model","__proto__":{"polluted":true}}'),
  Object.assign(Object.create({ inherited: 1 }), good),
  new (class Project {
    id = 'p1';
    name = 'A';
    created_at = '2026-01-01T00:00:00Z';
    kind = 'model';
    meta = null;
  })(),
  [good],
  null,
  'p1',
  { ...good, id: undefined },
  { id: 'p1', name: 'A', created_at: '2026-01-01T00:00:00Z', kind: 'model' },
  { ...good, meta: undefined },
];

/** Schemas that change what they parse: a run hands on zod's output, never the record as it came. */
const changing: Array<[string, z.ZodType, unknown[]]> = [
  ['a default', z.looseObject({ id: z.string(), n: z.number().default(1) }), [{ id: 'a' }, { id: 'a', n: 2 }]],
  ['a transform', z.looseObject({ id: z.string().transform((text) => text.toUpperCase()) }), [{ id: 'a' }]],
  ['trimming', z.looseObject({ id: z.string().trim() }), [{ id: ' a ' }, { id: 'a' }]],
  ['coercion', z.looseObject({ n: z.coerce.number() }), [{ n: '7' }, { n: 'x' }]],
  ['a refinement', z.looseObject({ id: z.string().refine((text) => text !== 'x') }), [{ id: 'a' }, { id: 'x' }]],
  ['a union', z.looseObject({ id: z.union([z.string(), z.number()]) }), [{ id: 1 }, { id: true }]],
  ['a catch', z.looseObject({ id: z.string().catch('x') }), [{ id: 1 }]],
  ['a url, normalised', z.looseObject({ link: z.url({ normalize: true }) }), [{ link: 'HTTP://Example.COM/a' }]],
  ['a catchall of its own', z.object({ id: z.string() }).catchall(z.string().trim()), [{ id: 'a', b: ' c ' }]],
  ['stripped unknown keys', z.object({ id: z.string() }), [{ id: 'a', extra: 1 }]],
  ['refused unknown keys', z.strictObject({ id: z.string() }), [{ id: 'a', extra: 1 }]],
];

/** What a run of a source whose provider answered `record`, validated by `entity`, hands on: its records, or the error. */
async function runOf(entity: z.ZodType, record: unknown): Promise<{ records: unknown[] } | { error: unknown }> {
  const connector = defineConnector({
    key: 'records',
    name: 'Records',
    version: '1.0.0',
    vendor: null,
    category: 'developer',
    status: 'beta',
    summary: 'Yields one given record, for the record check.',
    auth: bearerToken(),
    actions: [
      defineAction({
        key: 'records.list',
        label: 'List records',
        direction: 'source',
        entity: entity.meta({ id: 'Record' }),
        input: z.object({}),
        async *read() {
          yield { records: [record] };
        },
      }),
    ],
  });
  try {
    const records: unknown[] = [];
    for await (const page of runAction(connector, 'records.list', {
      input: {},
      connection: { baseUrl: 'http://127.0.0.1:9' },
      credential: () => 'record-check-credential',
      log: () => undefined,
    }))
      records.push(...page.records);
    return { records };
  } catch (error) {
    return { error };
  }
}

/** The run hands on exactly zod's output for the record, or fails with zod's first issue's path. */
async function expectZodOutcome(entity: z.ZodType, record: unknown): Promise<void> {
  const parsed = entity.safeParse(record);
  const outcome = await runOf(entity, record);
  const label = JSON.stringify(record) ?? String(record);
  if (parsed.success) {
    expect(outcome, label).toStrictEqual({ records: [parsed.data] });
  } else {
    expect('error' in outcome, label).toBe(true);
    const error = (outcome as { error: unknown }).error;
    expect(error, label).toBeInstanceOf(SchemaMismatchError);
    const path = ['records', '0', ...parsed.error.issues[0]!.path.map(String)].join('.');
    expect((error as SchemaMismatchError).issues[0]!.path, label).toBe(path);
  }
}

describe("a run's records are its entity schema's output", () => {
  it('hands on what zod accepts as zod returns it, and refuses what zod refuses', async () => {
    for (const value of values) await expectZodOutcome(Project, value);
  });

  it('hands on a plain record zod returns unchanged as an equal value', async () => {
    expect(await runOf(Project, good)).toStrictEqual({ records: [good] });
  });

  it.each(changing)('hands on what a schema with %s returns', async (_, schema, records) => {
    for (const record of records) await expectZodOutcome(schema, record);
  });
});
