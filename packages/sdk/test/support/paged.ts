import { z } from 'zod';
import {
  bearerToken,
  defineAction,
  defineConnector,
  type HttpRequest,
  type Paginator,
  readAll,
  type RunOptions,
} from '../../src/index.js';
import type { Harness } from './harness.js';

/** A connector of one paged source, `items.list`, reading `request` with `paginator` (`ctx.http.paginate`): for the paging tests. */

export const PagedItem = z.object({ id: z.string(), updated_at: z.string() }).meta({ id: 'PagedItem' });

export function pagedConnector(paginator: Paginator, request: HttpRequest = { path: '/items' }) {
  return defineConnector({
    key: 'paged',
    name: 'Paged',
    version: '1.0.0',
    vendor: null,
    category: 'developer',
    status: 'beta',
    summary: 'A paged source for the SDK tests.',
    auth: bearerToken(),
    actions: [
      defineAction({
        key: 'items.list',
        label: 'List items',
        direction: 'source',
        entity: PagedItem,
        input: z.object({}),
        // Declared too, so that `defineConnector` checks it.
        paginator,
        async *read(ctx) {
          for await (const page of ctx.http.paginate<z.input<typeof PagedItem>>(request, paginator))
            yield { records: page.records };
        },
      }),
    ],
  });
}

/** `count` items, `i1` ... `i<count>`, one second apart. */
export function items(count: number) {
  return Array.from({ length: count }, (_, index) => ({
    id: `i${index + 1}`,
    updated_at: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(),
  }));
}

/** Reads `items.list` of a paged connector against the harness's server: the ids read and the pages. */
export async function readPaged(
  h: Harness,
  paginator: Paginator,
  request?: HttpRequest,
  options: Partial<RunOptions> = {},
): Promise<{ ids: string[]; pages: number }> {
  const { records, pages } = await readAll(
    pagedConnector(paginator, request),
    'items.list',
    h.options({ input: {}, connection: { baseUrl: h.server.url }, ...options }),
  );
  return { ids: records.map((record) => (record as { id: string }).id), pages };
}
