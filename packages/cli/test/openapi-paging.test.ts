import { describe, expect, it } from 'vitest';
import type { Parameter, Schema } from '../src/openapi-document.js';
import { detectPaging, type ListOperation } from '../src/openapi-paging.js';

/** How a list operation pages, read from small documents of each style. */

const query = (name: string, schema: Schema = { type: 'string' }): Parameter => ({ name, in: 'query', schema });
const Item = {
  type: 'object',
  required: ['id'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
};
const envelope = (properties: Record<string, Schema>, records = 'data'): Schema => ({
  type: 'object',
  properties: { [records]: { type: 'array', items: Item }, ...properties },
});
const list = (parameters: Parameter[], answer: Schema, headers: string[] = [], path = '/items'): ListOperation => ({
  path,
  parameters,
  answer,
  headers,
});
const limit = query('limit', { type: 'integer', minimum: 1, maximum: 100, default: 20 });

describe('detectPaging: the paginator a list operation declares', () => {
  it('a cursor sent back from the answer, the page size at its maximum, and has_more as a stop', () => {
    const paging = detectPaging(
      list(
        [query('cursor'), limit],
        envelope({ pagination: { type: 'object', properties: { next_cursor: { type: 'string' } } } }),
      ),
    );
    expect(paging.paginator).toEqual({
      kind: 'cursor',
      options: {
        records: 'data',
        cursor: { from: 'pagination.next_cursor', to: { query: 'cursor' } },
        stop: ['empty-page'],
      },
    });
    expect(paging.driven).toEqual(['cursor']);
    expect(paging.pageSize).toEqual({ param: 'limit', value: 100 });

    const token = detectPaging(
      list(
        [query('page_token'), query('page_size', { type: 'integer', default: 50 })],
        envelope({ next_page_token: { type: 'string' }, has_more: { type: 'boolean' } }, 'items'),
      ),
    );
    expect(token.paginator).toEqual({
      kind: 'cursor',
      options: {
        records: 'items',
        cursor: { from: 'next_page_token', to: { query: 'page_token' } },
        stop: [{ hasMore: 'has_more' }, 'empty-page'],
      },
    });
    expect(token.pageSize).toEqual({ param: 'page_size', value: 50 });
  });

  it('a cursor named next in the answer, a cursor sent in a header, and an after that is an instant (a filter, no cursor)', () => {
    const next = detectPaging(list([query('after'), limit], envelope({ next: { type: 'string' } })));
    expect(next.paginator).toEqual({
      kind: 'cursor',
      options: { records: 'data', cursor: { from: 'next', to: { query: 'after' } }, stop: ['empty-page'] },
    });
    const header = detectPaging(
      list(
        [{ name: 'X-Cursor', in: 'header', schema: { type: 'string' } }],
        envelope({ next_cursor: { type: 'string' } }),
      ),
    );
    expect(header.paginator).toEqual({
      kind: 'cursor',
      options: { records: 'data', cursor: { from: 'next_cursor', to: { header: 'X-Cursor' } }, stop: ['empty-page'] },
    });
    expect(header.driven).toEqual([]);
    const instant = detectPaging(
      list([query('after', { type: 'string', format: 'date-time' })], envelope({ next_cursor: { type: 'string' } })),
    );
    expect(instant.paginator).toBeUndefined();
  });

  it("any text query parameter the answer sends back as next_<its name>, as Box's events do: stream_position from an anyOf next_stream_position, ended at an empty page too", () => {
    const events = detectPaging(
      list(
        [query('stream_position'), query('limit', { type: 'integer', maximum: 500, default: 100 })],
        envelope(
          {
            chunk_size: { type: 'integer' },
            next_stream_position: { anyOf: [{ type: 'string' }, { type: 'integer', format: 'int64' }] },
          },
          'entries',
        ),
        [],
        '/events',
      ),
    );
    expect(events.paginator).toEqual({
      kind: 'cursor',
      options: {
        records: 'entries',
        cursor: { from: 'next_stream_position', to: { query: 'stream_position' } },
        stop: ['empty-page'],
      },
    });
    expect(events.driven).toEqual(['stream_position']);
    expect(events.pageSize).toEqual({ param: 'limit', value: 500 });
    expect(events.summary).toBe(
      'the query `stream_position` sent back from `next_stream_position`, 500 a page (limit); the read ends when it is absent or a page comes empty (an API may give a next cursor after its last record)',
    );
    // A text parameter the answer names no next_ value for is no cursor; nor is a next_ value that is only ever a number.
    expect(detectPaging(list([query('filter_term')], envelope({ next_filter: { type: 'string' } }))).paginator).toBe(
      undefined,
    );
    expect(detectPaging(list([query('position')], envelope({ next_position: { type: 'integer' } }))).paginator).toBe(
      undefined,
    );
  });

  it('records under the names the stand-in serves them by, in an envelope of more than three fields', () => {
    const search = detectPaging(
      list(
        [query('cursor')],
        envelope({ total: { type: 'integer' }, took: { type: 'integer' }, next_cursor: { type: 'string' } }, 'hits'),
      ),
    );
    expect(search.records.property).toBe('hits');
    expect(search.paginator).toMatchObject({ kind: 'cursor', options: { records: 'hits' } });
  });

  it('an offset moved on by the records, with the limit as its page size and the total as its stop', () => {
    const paging = detectPaging(
      list(
        [query('offset', { type: 'integer', minimum: 0 }), limit],
        envelope({ meta: { type: 'object', properties: { total: { type: 'integer' } } } }, 'results'),
      ),
    );
    expect(paging.paginator).toEqual({
      kind: 'offset',
      options: {
        records: 'results',
        offset: { param: 'offset' },
        pageSize: { param: 'limit', value: 100, max: 100 },
        stop: [{ total: 'meta.total' }],
      },
    });
    expect(paging.driven).toEqual(['offset', 'limit']);
    expect(paging.pageSize).toBeUndefined();
  });

  it('a page number counted up, per_page sent by the read, an empty page as the stop (total_pages counts pages, not records)', () => {
    const paging = detectPaging(
      list(
        [query('page', { type: 'integer', minimum: 1 }), query('per_page', { type: 'integer', maximum: 50 })],
        envelope({ total_pages: { type: 'integer' } }),
      ),
    );
    expect(paging.paginator).toEqual({ kind: 'page-number', options: { records: 'data', page: { param: 'page' } } });
    expect(paging.pageSize).toEqual({ param: 'per_page', value: 50 });
    expect(paging.summary).toMatch(/the read ends when a page comes empty/);
    const fromZero = detectPaging(list([query('page', { type: 'integer', minimum: 0 })], envelope({})));
    expect(fromZero.paginator).toMatchObject({ options: { page: { param: 'page', initial: 0 } } });
  });

  it('the Link header when the answer declares one, for an answer that is the list itself', () => {
    const paging = detectPaging(
      list(
        [query('page', { type: 'integer' }), query('per_page', { type: 'integer' })],
        { type: 'array', items: Item },
        ['Link', 'X-Total'],
      ),
    );
    expect(paging.paginator).toEqual({ kind: 'link-header', options: { records: '' } });
    expect(paging.driven).toEqual([]);
  });

  it('a next URL in the body: links.next as a URI, HAL _links.next.href, or next beside a page number', () => {
    const links = detectPaging(
      list([limit], envelope({ links: { type: 'object', properties: { next: { type: 'string', format: 'uri' } } } })),
    );
    expect(links.paginator).toEqual({ kind: 'next-url', options: { records: 'data', next: 'links.next' } });
    const hal = detectPaging(
      list(
        [],
        envelope({
          _links: {
            type: 'object',
            properties: { next: { type: 'object', properties: { href: { type: 'string' } } } },
          },
        }),
      ),
    );
    expect(hal.paginator).toEqual({ kind: 'next-url', options: { records: 'data', next: '_links.next.href' } });
    const django = detectPaging(
      list([query('page', { type: 'integer' })], envelope({ next: { type: 'string', nullable: true } }, 'results')),
    );
    expect(django.paginator).toEqual({ kind: 'next-url', options: { records: 'results', next: 'next' } });
  });

  it('no paginator where the document shows none, or where the cursor is not in the answer, saying why', () => {
    const none = detectPaging(list([query('q')], envelope({})));
    expect(none.paginator).toBeUndefined();
    expect(none.summary).toMatch(/no way to ask for a further page/);
    const stripe = detectPaging(list([query('starting_after'), limit], envelope({ has_more: { type: 'boolean' } })));
    expect(stripe.paginator).toBeUndefined();
    expect(stripe.summary).toMatch(/`starting_after` parameter but the answer names no next cursor.*last record's id/);
    const offsetOnly = detectPaging(list([query('offset', { type: 'integer' })], envelope({})));
    expect(offsetOnly.paginator).toBeUndefined();
    expect(offsetOnly.summary).toMatch(/no page size/);
    const one = detectPaging(list([], Item, [], '/items/{id}'));
    expect(one.records.many).toBe(false);
    expect(one.paginator).toBeUndefined();
  });
});

describe('detectPaging: incremental reading where the document has a newer-than filter', () => {
  const cursor = [query('cursor'), limit];
  const answer = envelope({ next_cursor: { type: 'string' } });
  const dateTime = (name: string) => query(name, { type: 'string', format: 'date-time' });

  it('an updated filter is preferred to a created one; the order is oldest first where the list sorts ascending on the field', () => {
    const sorted = detectPaging(
      list(
        [
          ...cursor,
          dateTime('created_after'),
          dateTime('updated_after'),
          dateTime('updated_before'),
          query('sort', { type: 'string', enum: ['name', 'created_at', 'updated_at'] }),
          query('direction', { type: 'string', enum: ['asc', 'desc'] }),
        ],
        answer,
      ),
    );
    expect(sorted.incremental).toEqual({
      cursorField: 'updated_at',
      query: 'updated_after',
      format: 'iso',
      sort: { sort: 'updated_at', direction: 'asc' },
      order: 'oldest-first',
    });
    // GitHub names the field without `_at`; JSON:API sorts ascending on the bare name and descending on `-name`.
    const github = detectPaging(
      list(
        [
          ...cursor,
          dateTime('since'),
          query('sort', { type: 'string', enum: ['created', 'updated'] }),
          query('direction', { type: 'string', enum: ['asc', 'desc'] }),
        ],
        answer,
      ),
    );
    expect(github.incremental).toMatchObject({ query: 'since', sort: { sort: 'updated', direction: 'asc' } });
    const jsonApi = detectPaging(
      list(
        [...cursor, dateTime('updated_after'), query('sort', { type: 'string', enum: ['-updated_at', 'updated_at'] })],
        answer,
      ),
    );
    expect(jsonApi.incremental).toMatchObject({ sort: { sort: 'updated_at' }, order: 'oldest-first' });
    const unsorted = detectPaging(list([...cursor, dateTime('created_after')], answer));
    expect(unsorted.incremental).toEqual({
      cursorField: 'created_at',
      query: 'created_after',
      format: 'iso',
      order: 'newest-first',
    });
  });

  it('modified_since, updatedSince and updated_at_min name their fields; a record without id is told apart by <resource>_id', () => {
    const Event = {
      type: 'object',
      required: ['event_id'],
      properties: {
        event_id: { type: 'string' },
        modified_at: { type: 'string', format: 'date-time' },
        updatedAt: { type: 'string', format: 'date-time' },
      },
    };
    const events = {
      type: 'object',
      properties: { data: { type: 'array', items: Event }, next_cursor: { type: 'string' } },
    };
    expect(detectPaging(list([...cursor, dateTime('modified_since')], events, [], '/events')).incremental).toEqual({
      cursorField: 'modified_at',
      tieBreaker: 'event_id',
      query: 'modified_since',
      format: 'iso',
      order: 'newest-first',
    });
    expect(detectPaging(list([...cursor, dateTime('updatedSince')], events, [], '/events')).incremental).toMatchObject({
      cursorField: 'updatedAt',
      query: 'updatedSince',
    });
    expect(detectPaging(list([...cursor, dateTime('updated_at_min')], answer)).incremental).toMatchObject({
      cursorField: 'updated_at',
      query: 'updated_at_min',
    });
  });

  it('<resource>_id tells records apart even where the schema does not require it (Box requires nothing); a uuid or key must be required', () => {
    const paged = (properties: Record<string, Schema>) => ({
      type: 'object',
      properties: {
        entries: { type: 'array', items: { type: 'object', properties } },
        next_stream_position: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      },
    });
    const created_at = { type: 'string', format: 'date-time' };
    const asked = [query('stream_position'), dateTime('created_after')];
    const box = detectPaging(list(asked, paged({ created_at, event_id: { type: 'string' } }), [], '/events'));
    expect(box.incremental).toEqual({
      cursorField: 'created_at',
      tieBreaker: 'event_id',
      query: 'created_after',
      format: 'iso',
      order: 'newest-first',
    });
    const camel = detectPaging(list(asked, paged({ created_at, eventId: { type: 'integer' } }), [], '/events'));
    expect(camel.incremental).toMatchObject({ tieBreaker: 'eventId' });
    for (const name of ['uuid', 'key'])
      expect(
        detectPaging(list(asked, paged({ created_at, [name]: { type: 'string' } }), [], '/events')).incremental,
        name,
      ).toBeUndefined();
  });

  it('a filter in unix seconds or milliseconds on a date-time field is sent in its unit; an integer from or start is no filter', () => {
    const seconds = query('updated_since', { type: 'integer' });
    expect(detectPaging(list([...cursor, seconds], answer)).incremental).toMatchObject({
      cursorField: 'updated_at',
      query: 'updated_since',
      format: 'unix',
    });
    const millis = query('updated_after_ms', { type: 'integer', format: 'int64' });
    expect(detectPaging(list([...cursor, millis], answer)).incremental).toMatchObject({
      query: 'updated_after_ms',
      format: 'unix-ms',
    });
    expect(detectPaging(list([...cursor, query('from', { type: 'integer' })], answer)).incremental).toBeUndefined();
  });

  it('none without a date-time filter, a matching date-time field, an id, or a paginator', () => {
    expect(detectPaging(list([...cursor, dateTime('updated_before')], answer)).incremental).toBeUndefined();
    expect(detectPaging(list([...cursor, query('updated_after')], answer)).incremental).toBeUndefined();
    expect(detectPaging(list([...cursor, dateTime('deleted_after')], answer)).incremental).toBeUndefined();
    const anonymous = {
      type: 'object',
      properties: {
        data: { type: 'array', items: { type: 'object', properties: { updated_at: Item.properties.updated_at } } },
        next_cursor: { type: 'string' },
      },
    };
    expect(detectPaging(list([...cursor, dateTime('updated_after')], anonymous)).incremental).toBeUndefined();
    expect(detectPaging(list([dateTime('updated_after')], answer)).incremental).toBeUndefined();
  });
});
