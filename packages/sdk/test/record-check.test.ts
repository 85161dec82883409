import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { recordTest } from '../src/record-check.js';

/**
 * The in-place record test may only pass a record zod would accept and return unchanged:
 * every case below is checked against zod itself, so a test that let through too much (or a
 * zod upgrade that changed what a schema does) fails here.
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

/** Schemas that may change what they parse: none may be checked in place. */
const changing: Array<[string, z.ZodType]> = [
  ['a default', z.looseObject({ id: z.string(), n: z.number().default(1) })],
  ['a transform', z.looseObject({ id: z.string().transform((text) => text.toUpperCase()) })],
  ['trimming', z.looseObject({ id: z.string().trim() })],
  ['coercion', z.looseObject({ n: z.coerce.number() })],
  ['a refinement', z.looseObject({ id: z.string().refine((text) => text !== 'x') })],
  ['a union', z.looseObject({ id: z.union([z.string(), z.number()]) })],
  ['a pipe', z.looseObject({ id: z.string().pipe(z.string()) })],
  ['a catch', z.looseObject({ id: z.string().catch('x') })],
  ['a url, which may be normalised', z.looseObject({ link: z.url({ normalize: true }) })],
  ['a catchall of its own', z.object({ id: z.string() }).catchall(z.string().trim())],
];

describe('the in-place record test', () => {
  it('compiles a plain entity schema', () => {
    expect(recordTest(Project)).toBeTypeOf('function');
  });

  it('passes a record only when zod accepts it and returns it unchanged', () => {
    const test = recordTest(Project)!;
    let passed = 0;
    for (const value of values) {
      const parsed = Project.safeParse(value);
      if (test(value)) {
        passed += 1;
        expect(parsed.success, JSON.stringify(value)).toBe(true);
        expect(parsed.data).toStrictEqual(value);
      }
    }
    // The two good records, the one with an offset zod's datetime accepts, and the one whose meta is present but undefined.
    expect(passed).toBe(4);
  });

  it('passes every record zod accepts unchanged among plain data', () => {
    const test = recordTest(Project)!;
    for (const value of values) {
      const parsed = Project.safeParse(value);
      const plain =
        value !== null &&
        typeof value === 'object' &&
        Object.getPrototypeOf(value) === Object.prototype &&
        !Object.hasOwn(value, '__proto__');
      if (parsed.success && plain && JSON.stringify(parsed.data) === JSON.stringify(value))
        expect(test(value), JSON.stringify(value)).toBe(true);
    }
  });

  it('leaves to zod an object whose unknown keys zod strips or refuses', () => {
    for (const schema of [z.object({ id: z.string() }), z.strictObject({ id: z.string() })]) {
      const test = recordTest(schema)!;
      expect(test({ id: 'a' })).toBe(true);
      expect(test({ id: 'a', extra: 1 })).toBe(false);
    }
  });

  it.each(changing)('leaves to zod a schema with %s', (_, schema) => {
    expect(recordTest(schema)).toBeUndefined();
  });
});
