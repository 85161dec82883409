import { cursorLoop, type SourceContext, SchemaMismatchError, zodIssues } from '@plugboard/sdk';
import { z } from 'zod';

/**
 * GET /projects and GET /jobs page the same way: `limit` (1 to 100) and `cursor`, answered with
 * `{data: [...], pagination: {next_cursor?}}`, where `next_cursor` is absent on the last page.
 */

const CursorPage = z.object({
  // Checked, not parsed: z.array would copy every page element by element, and the records are validated later.
  data: z.custom<unknown[]>((value) => Array.isArray(value), { message: 'expected an array' }),
  pagination: z.object({ next_cursor: z.string().min(1).optional() }).optional(),
});

export interface CursorPageOf {
  data: unknown[];
  /** No page follows. */
  last: boolean;
}

type Query = Record<string, string | number | undefined>;

/** Every page of a cursor-paged list, in the provider's order, until `next_cursor` is absent; a provider going round in a cycle is stopped. */
export async function* cursorPages(
  ctx: SourceContext<unknown>,
  action: string,
  path: string,
  query: Query,
): AsyncGenerator<CursorPageOf> {
  const loop = cursorLoop();
  let cursor: string | undefined;
  do {
    const answer = await ctx.http.request({ method: 'GET', path, query: { ...query, cursor } });
    const page = CursorPage.safeParse(answer.data);
    if (!page.success) {
      throw new SchemaMismatchError(`descript ${action}`, zodIssues(page.error), {
        status: answer.status,
        requestId: answer.requestId,
      });
    }
    const next = page.data.pagination?.next_cursor;
    if (loop.repeats(next)) {
      throw new SchemaMismatchError(
        `descript ${action}`,
        [{ path: 'pagination.next_cursor', message: 'the same cursor came back twice; stopping rather than looping' }],
        {
          requestId: answer.requestId,
        },
      );
    }
    yield { data: page.data.data, last: next === undefined };
    cursor = next;
  } while (cursor !== undefined);
}
