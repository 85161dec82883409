import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import {
  bearerToken,
  cursorPaginator,
  DefinitionError,
  defineAction,
  defineConnector,
  InvalidInputError,
  runAction,
} from '../src/index.js';
import type { NewerThan } from '../src/host.js';
import { useHarness } from './support/harness.js';
import { json } from './support/server.js';

/**
 * `incremental.newerThan.earlierMs` in every format that is a time: the bound the next run asks
 * from is at least that much before the checkpoint, so a provider whose filter leaves its bound
 * out still lists a record written later at the checkpoint's own value.
 */

const h = useHarness();

/** 2026-01-01T00:00:00Z, in seconds. */
const T = 1_767_225_600;
type Cursor = 'seconds' | 'milliseconds' | 'iso';
/** The record field's value `second`s after T, as a provider of that cursor writes it. */
const written = (cursor: Cursor, second: number): string | number =>
  cursor === 'seconds' ? T + second : cursor === 'milliseconds' ? (T + second) * 1000 : isoAt(second);
const isoAt = (second: number) => new Date((T + second) * 1000).toISOString();
/** What a value names, in milliseconds: a record's field as its cursor writes it, or the bound as `format` sends it. */
const msOf = (value: string | number, unit: Cursor | NewerThan['format']): number =>
  unit === 'seconds' || unit === 'unix'
    ? Number(value) * 1000
    : unit === 'milliseconds' || unit === 'unix-ms'
      ? Number(value)
      : Date.parse(String(value));

const schemaOf = (cursor: Cursor) => (cursor === 'iso' ? z.iso.datetime() : z.number().int());
type Item = { id: string; updated_at: string | number };

/** `items.list` paging `/items` through the watermark on `updated_at`, whose schema is `cursor`. */
function connector(cursor: z.ZodType, newerThan: NewerThan) {
  return defineConnector({
    key: 'bounded',
    name: 'Bounded',
    version: '1.0.0',
    vendor: null,
    category: 'developer',
    status: 'beta',
    summary: 'An incremental source whose provider leaves its newer-than bound out.',
    auth: bearerToken(),
    actions: [
      defineAction({
        key: 'items.list',
        label: 'List items',
        direction: 'source',
        entity: z.object({ id: z.string(), updated_at: cursor }).meta({ id: 'BoundedItem' }),
        input: z.object({}),
        incremental: { cursorField: 'updated_at', newerThan, order: 'oldest-first' },
        paginator: cursorPaginator({ records: 'data', cursor: { from: 'next', to: { query: 'cursor' } } }),
        async *read(ctx) {
          yield* ctx.pages<Item>({ path: '/items' });
        },
      }),
    ],
  });
}

/** A provider listing `stored` oldest first, two a page, and only records strictly newer than `since`. */
async function excludingProvider(stored: Item[], cursor: Cursor, format: NewerThan['format']) {
  return h.start((req, res) => {
    const since = req.query.get('since');
    const listed = stored
      .filter((record) => since === null || msOf(record.updated_at, cursor) > msOf(since, format))
      .sort((a, b) => msOf(a.updated_at, cursor) - msOf(b.updated_at, cursor) || a.id.localeCompare(b.id));
    const from = Number(req.query.get('cursor') ?? 0);
    json(res, 200, { data: listed.slice(from, from + 2), next: from + 2 < listed.length ? String(from + 2) : null });
  });
}

async function run(of: ReturnType<typeof connector>, checkpoint?: unknown) {
  const ids: string[] = [];
  let last: unknown;
  const options = h.options({ input: {}, connection: { baseUrl: h.server.url }, checkpoint });
  for await (const page of runAction(of, 'items.list', options)) {
    ids.push(...page.records.map((record) => (record as Item).id));
    last = page.checkpoint ?? last;
  }
  return { ids, checkpoint: last };
}

describe('earlierMs against a provider that leaves its bound out', () => {
  it.each([
    { cursor: 'seconds', format: 'unix', earlierMs: 1000, asked: T + 3 },
    { cursor: 'seconds', format: 'unix', earlierMs: 1, asked: T + 3 },
    { cursor: 'seconds', format: 'unix', earlierMs: 1500, asked: T + 2 },
    { cursor: 'milliseconds', format: 'unix-ms', earlierMs: 1, asked: (T + 4) * 1000 - 1 },
    { cursor: 'iso', format: 'iso', earlierMs: 1, asked: '2026-01-01T00:00:03.999Z' },
    { cursor: 'iso', format: 'unix', earlierMs: 1, asked: T + 3 },
    { cursor: 'iso', format: 'unix-ms', earlierMs: 1, asked: (T + 4) * 1000 - 1 },
  ] as const)(
    'a $cursor cursor asked as $format, $earlierMs ms earlier: $asked',
    async ({ cursor, format, earlierMs, asked }) => {
      const stored: Item[] = [1, 2, 4].map((second, index) => ({
        id: `a${index + 1}`,
        updated_at: written(cursor, second),
      }));
      const server = await excludingProvider(stored, cursor, format);
      const source = connector(schemaOf(cursor), { query: 'since', format, earlierMs });
      const first = await run(source);
      expect(first).toEqual({ ids: ['a1', 'a2', 'a3'], checkpoint: { since: written(cursor, 4), seen_ids: ['a3'] } });
      // Written after the first run, at the checkpoint's own value, and one later.
      stored.push({ id: 'a4', updated_at: written(cursor, 4) }, { id: 'a5', updated_at: written(cursor, 5) });
      const second = await run(source, first.checkpoint);
      expect(second).toEqual({ ids: ['a4', 'a5'], checkpoint: { since: written(cursor, 5), seen_ids: ['a5'] } });
      expect(server.requests.at(-1)!.query.get('since')).toBe(String(asked));
    },
  );
});

describe('earlierMs refused at definition where the bound is not a time', () => {
  const problems = (cursor: Cursor, newerThan: NewerThan) => {
    try {
      connector(schemaOf(cursor), newerThan);
    } catch (error) {
      expect(error).toBeInstanceOf(DefinitionError);
      return (error as DefinitionError).problems;
    }
    throw new Error('the definition was accepted');
  };

  it('the value as the provider wrote it (a plain number or an opaque text), and a number written as an ISO instant', () => {
    expect(problems('seconds', { query: 'since', earlierMs: 1000 })).toEqual([
      "connector 'bounded': action 'items.list': incremental.newerThan.earlierMs needs a format that is a time ('iso', 'unix' or 'unix-ms'); 'as-is' sends the cursor value as the provider wrote it",
    ]);
    expect(problems('iso', { query: 'since', format: 'as-is', earlierMs: 1 })).toHaveLength(1);
    expect(problems('seconds', { query: 'since', format: 'iso', earlierMs: 1000 })).toEqual([
      "connector 'bounded': action 'items.list': incremental.newerThan.format 'iso' needs a cursor of ISO 8601 instants; the cursor field 'updated_at' is a number: say its unit with 'unix' (seconds) or 'unix-ms' (milliseconds)",
    ]);
  });

  it('a start the format cannot write is refused before any request, naming where it came from', async () => {
    const server = await excludingProvider([], 'seconds', 'iso');
    const loose = connector(z.union([z.iso.datetime(), z.number()]), { query: 'since', format: 'iso', earlierMs: 1 });
    const checkpoint = { since: T, seen_ids: [] };
    const refused = await run(loose, checkpoint).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InvalidInputError);
    expect((refused as InvalidInputError).issues).toEqual([
      { path: 'checkpoint.since', message: `since cannot be written from ${T} in the format 'iso'` },
    ]);
    const missing = await run(loose, { seen_ids: [] }).catch((error: unknown) => error);
    expect((missing as InvalidInputError).issues).toEqual([
      { path: 'checkpoint.since', message: "since cannot be written from a missing value in the format 'iso'" },
    ]);
    expect(server.requests).toEqual([]);
  });
});
