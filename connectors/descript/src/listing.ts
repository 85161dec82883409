import { cursorPaginator } from '@plugboard/sdk';
import { z } from 'zod';

/**
 * GET /projects and GET /jobs list the same way: `limit` (1 to 100) and `cursor`, answered with
 * `{data: [...], pagination: {next_cursor?}}`, where `next_cursor` is absent on the last page.
 */
export const byCursor = cursorPaginator({
  records: 'data',
  cursor: { from: 'pagination.next_cursor', to: { query: 'cursor' } },
  answer: z.object({
    data: z.array(z.unknown()),
    pagination: z.object({ next_cursor: z.string().optional() }),
  }),
});

/**
 * Where the next run resumes: the newest value of the timestamp read (`<field>`) and the ids
 * read at exactly that instant (the provider writes timestamps to the second, so several records
 * share one). It is asked for from 1 ms earlier, which returns the records at the instant whether
 * the provider's `*_after` filter includes its bound (the simulator does) or not (the document
 * does not say); the SDK drops the ones already read.
 */
export function timestampCheckpoint<F extends string>(field: F) {
  return z.strictObject({
    [field]: z.iso.datetime({ offset: true }),
    seen_ids: z.array(z.string().min(1)).describe('Ids already read at exactly that instant'),
  } as Record<F, z.ZodString> & { seen_ids: z.ZodArray<z.ZodString> });
}

/** The `*_after` filter the checkpoint's field names, 1 ms before it. */
export const after = (query: string) => ({ query, format: 'iso', earlierMs: 1 }) as const;
