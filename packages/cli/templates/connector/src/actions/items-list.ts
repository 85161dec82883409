import { defineAction } from '@plugboard/sdk';
import { z } from 'zod';
import { Item } from '../entities.js';

export const itemsList = defineAction({
  key: 'items.list',
  label: 'List items',
  description: 'Items, oldest change first. Run again with the same state, it reads only the items changed since.',
  direction: 'source',
  entity: Item,
  input: z.object({ limit: z.number().int().min(1).max(100).default(50) }),
  incremental: { cursorField: 'updated_at', checkpoint: z.object({ updated_after: z.string() }) },
  async *read(ctx, input) {
    const since = ctx.checkpoint?.updated_after;
    let cursor: string | undefined;
    do {
      const page = await ctx.http.get<{ data: z.input<typeof Item>[]; next_cursor?: string | null }>('/items', {
        query: { limit: input.limit, cursor, updated_after: since },
      });
      // The API's filter includes the checkpoint's own instant: what the last run read is left out.
      const records = since === undefined ? page.data : page.data.filter((item) => item.updated_at > since);
      const last = page.data.at(-1);
      yield { records, ...(last ? { checkpoint: { updated_after: last.updated_at } } : {}) };
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  },
});
