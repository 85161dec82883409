import { defineAction } from '@plugboard/sdk';
import { z } from 'zod';
import { Item } from '../entities.js';

export const itemsCreate = defineAction({
  key: 'items.create',
  label: 'Create an item',
  description: 'Creates an item and returns it. A retry could create it twice, so it is sent once.',
  direction: 'destination',
  // Not idempotent: it is never retried automatically. Not destructive: nothing that was there changes.
  effect: { writes: true, idempotent: false, destructive: false },
  entity: Item,
  input: z.object({ name: z.string().min(1).max(200) }),
  async write(ctx, input) {
    return ctx.http.post('/items', input);
  },
});
