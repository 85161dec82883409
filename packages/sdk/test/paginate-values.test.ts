import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { cursorPaginator, nextUrlPaginator, SchemaMismatchError } from '../src/index.js';
import { useHarness } from './support/harness.js';
import { items, readPaged } from './support/paged.js';
import { json } from './support/server.js';

/**
 * What a paginator reads from a page (a cursor, a next URL, the declared answer) is checked as it
 * is read: a value of the wrong type is a SchemaMismatchError naming the path and the type seen,
 * never taken for the last page, which would end the read as a success.
 */

const h = useHarness();
const all = items(4);
const ids = all.map((item) => item.id);

const byCursor = (answer?: z.ZodType) =>
  cursorPaginator({
    records: 'data',
    cursor: { from: 'pagination.next_cursor', to: { query: 'cursor' } },
    ...(answer ? { answer } : {}),
  });

/** Page 1 answers `first` as its next cursor, or as its whole pagination with `whole`; any later page is the last. */
const serveCursor = (first: unknown, whole = false) =>
  h.start((req, res) => {
    if (req.query.get('cursor') === null)
      json(
        res,
        200,
        { data: all.slice(0, 2), ...(whole ? (first as object) : { pagination: { next_cursor: first } }) },
        { 'x-request-id': 'req-1' },
      );
    else json(res, 200, { data: all.slice(2), pagination: {} });
  });

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('the read succeeded');
    },
    (error: unknown) => error as SchemaMismatchError,
  );

describe('a cursor of the wrong type', () => {
  it('a whole number is taken as its decimal text, and the read goes on', async () => {
    await serveCursor(2);
    expect(await readPaged(h, byCursor())).toEqual({ ids, pages: 2 });
    expect(h.server.requests.map((request) => request.query.get('cursor'))).toEqual([null, '2']);
  });

  it.each([
    [{}, 'an object'],
    [true, 'a boolean'],
    [[], 'an array'],
    [['c2'], 'an array'],
    [2.5, 'a number that is not a whole number'],
  ])('%j is a SchemaMismatchError naming the path and the type, never the end', async (value, type) => {
    await serveCursor(value);
    const error = await failure(readPaged(h, byCursor()));
    expect(error).toBeInstanceOf(SchemaMismatchError);
    expect(error).toMatchObject({
      code: 'schema_mismatch',
      requestId: 'req-1',
      issues: [
        { path: 'pagination.next_cursor', message: `page 1 has ${type} here, not a cursor (text or a whole number)` },
      ],
    });
    expect(h.server.requests).toHaveLength(1);
  });

  it('none (absent, null or empty) is still the last page', async () => {
    for (const value of [undefined, null, '']) {
      await serveCursor(value);
      expect(await readPaged(h, byCursor())).toEqual({ ids: ids.slice(0, 2), pages: 1 });
    }
  });
});

describe('a next URL of the wrong type', () => {
  it.each([
    [7, 'a number'],
    [{ href: '/items?from=2' }, 'an object'],
    [true, 'a boolean'],
  ])('%j is a SchemaMismatchError naming the path and the type, never the end', async (value, type) => {
    await h.start((req, res) => json(res, 200, { data: all.slice(0, 2), links: { next: value } }));
    const error = await failure(readPaged(h, nextUrlPaginator({ records: 'data', next: 'links.next' })));
    expect(error).toBeInstanceOf(SchemaMismatchError);
    expect(error.issues).toEqual([{ path: 'links.next', message: `page 1 has ${type} here, not a URL` }]);
    expect(h.server.requests).toHaveLength(1);
  });
});

describe('pages are checked against the declared answer as they are read', () => {
  const answer = z.object({
    data: z.array(z.unknown()),
    pagination: z.object({ next_cursor: z.string().optional() }),
  });

  it('a page that leaves out what the answer requires is a SchemaMismatchError naming the path, not the end', async () => {
    // Without `pagination` the cursor is absent too: taken for the last page, it would end the read well.
    await serveCursor({}, true);
    const error = await failure(readPaged(h, byCursor(answer)));
    expect(error).toBeInstanceOf(SchemaMismatchError);
    expect(error).toMatchObject({
      requestId: 'req-1',
      issues: [
        {
          path: 'pagination',
          message: expect.stringMatching(
            /^page 1 does not match the declared answer here: .*expected object, received undefined/,
          ),
        },
      ],
    });
  });

  it('a cursor the answer declares as text, sent as an object, is named with the type seen', async () => {
    await serveCursor({ after: 'c2' });
    const error = await failure(readPaged(h, byCursor(answer)));
    expect(error.issues).toEqual([
      { path: 'pagination.next_cursor', message: expect.stringMatching(/expected string, received object/) },
    ]);
  });

  it('a whole number where the answer declares text is taken as its decimal text there too', async () => {
    await serveCursor(2);
    expect(await readPaged(h, byCursor(answer))).toEqual({ ids, pages: 2 });
  });

  it('records are checked as a list only: their fields are the entity schema’s to check', async () => {
    const strict = z.object({
      data: z.array(z.object({ id: z.number() })),
      pagination: z.object({ next_cursor: z.string().optional() }),
    });
    await serveCursor(undefined);
    expect(await readPaged(h, byCursor(strict))).toEqual({ ids: ids.slice(0, 2), pages: 1 });
  });
});
