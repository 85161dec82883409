import { defineAction } from '@plugboard/sdk';
import { z } from 'zod';
import { Item } from '../entities.js';

export const itemsCreate = defineAction({
  key: 'items.create',
  label: 'Create an item',
  description: 'Creates an item and returns it. A retry could create it twice, so it is sent once.',
  direction: 'destination',
  entity: Item,
  input: z.object({ name: z.string().min(1).max(200) }),
  retry: 'never',
  async write(ctx, input) {
    return ctx.http.post('/items', input);
  },
});
