import { z } from 'zod';
import { bearerToken, defineAction, defineConnector, type HttpRequest, type Paginator } from '../../src/index.js';

/** A connector of one paged source, `items.list`, reading `request` with `paginator`: for the paging tests. */

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
