import { describe, expect, it } from 'vitest';
import {
  DefinitionError,
  NotFoundError,
  offsetPaginator,
  pageNumberPaginator,
  ProviderRejectedError,
} from '../src/index.js';
import type { StopWhen } from '../src/paginate/paged-options.js';
import { catalogueEntry } from '../src/host.js';
import { useHarness } from './support/harness.js';
import { items, pagedConnector, readPaged } from './support/paged.js';
import { json } from './support/server.js';

/**
 * A provider that answers a page past the last with an error status (404, or 400 "page out of
 * range"): a `{ status }` stop condition ends the read there as at its last page, while the same
 * status on the first page is still the error it says (the list itself is missing).
 */

const h = useHarness();
const all = items(5);
const ids = all.map((item) => item.id);

const byNumber = (stop: StopWhen[]) =>
  pageNumberPaginator({ records: 'results', page: { param: 'page' }, pageSize: { param: 'per_page', value: 2 }, stop });

/** Pages of two by number; a page with no records answers `status` with `body`. */
const servePastEnd = (status: number, body: unknown) =>
  h.start((req, res) => {
    const page = Number(req.query.get('page') ?? req.query.get('offset'));
    const offset = req.query.has('offset') ? page : (page - 1) * 2;
    const slice = all.slice(offset, offset + 2);
    if (slice.length === 0) json(res, status, body);
    else json(res, 200, { results: slice });
  });

const endsOf = () =>
  h.logs
    .filter((entry) => 'pagingEnded' in entry)
    .map(({ pagingEnded, page, status }) => ({ pagingEnded, page, status }));

describe('a status past the last page', () => {
  it('a 404 after the last page ends the read as its last page, every record read', async () => {
    await servePastEnd(404, { error: 'not_found', message: 'No such page' });
    expect(await readPaged(h, byNumber([{ status: [404] }]), undefined, { logLevel: 'debug' })).toEqual({
      ids,
      pages: 4,
    });
    expect(h.server.requests.map((request) => request.query.get('page'))).toEqual(['1', '2', '3', '4']);
    expect(endsOf()).toEqual([{ pagingEnded: 'last-page', page: 4, status: 404 }]);
  });

  it('a 400 "page out of range" ends it the same way, with an offset too', async () => {
    await servePastEnd(400, { error: 'invalid_request', message: 'page out of range' });
    expect(await readPaged(h, byNumber([{ status: [404, 400] }]))).toEqual({ ids, pages: 4 });
    const byOffset = offsetPaginator({
      records: 'results',
      offset: { param: 'offset' },
      pageSize: { param: 'limit', value: 2 },
      stop: [{ status: [400] }],
    });
    expect((await readPaged(h, byOffset)).ids).toEqual(ids);
  });

  it('the same status on the first page is the error it says: the list is missing', async () => {
    await h.start((_req, res) => json(res, 404, { error: 'not_found', message: 'No such drive' }));
    const failure = await readPaged(h, byNumber([{ status: [404] }])).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(NotFoundError);
    expect(failure).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('a status the condition does not name stays an error past the first page', async () => {
    await servePastEnd(400, { error: 'invalid_request', message: 'page out of range' });
    const failure = await readPaged(h, byNumber([{ status: [404] }])).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ProviderRejectedError);
    expect(failure).toMatchObject({ status: 400 });
  });
});

describe('a status stop condition at definition', () => {
  const refused = (stop: unknown) => {
    try {
      pagedConnector(byNumber([stop as StopWhen]));
    } catch (error) {
      expect(error).toBeInstanceOf(DefinitionError);
      return (error as DefinitionError).problems;
    }
    throw new Error('the definition was accepted');
  };
  const problem = (text: string) => `connector 'paged': action 'items.list': paginator: ${text}`;

  it('is accepted with 4xx statuses, and the connector has its catalogue entry', () => {
    const connector = pagedConnector(byNumber([{ status: [404, 400, 416] }]));
    expect(catalogueEntry(connector).operations).toHaveLength(1);
  });

  it('refuses a status that is not a 4xx number, and one that says the caller was refused', () => {
    expect(refused({ status: [500] })).toEqual([
      problem('stop { status }: 500 is not a 4xx status (a page past the last one is a client error)'),
    ]);
    expect(refused({ status: [200, '404', 404.5] })).toEqual([
      problem('stop { status }: 200 is not a 4xx status (a page past the last one is a client error)'),
      problem('stop { status }: "404" is not a 4xx status (a page past the last one is a client error)'),
      problem('stop { status }: 404.5 is not a 4xx status (a page past the last one is a client error)'),
    ]);
    expect(refused({ status: [429] })).toEqual([
      problem('stop { status }: 429 refuses the caller rather than ending the list; it cannot end a read'),
    ]);
    expect(refused({ status: [] })).toEqual([problem('stop { status } needs a list of 4xx statuses')]);
    expect(refused({ status: 404 })).toEqual([problem('stop { status } needs a list of 4xx statuses')]);
  });
});
