import { z } from 'zod';

/**
 * The data types the actions read and write. Keep the provider's own field names, and a loose
 * object where the provider may add fields; the `id` in `.meta` names the type in the catalogue.
 */
export const Item = z
  .looseObject({
    id: z.string().min(1),
    name: z.string(),
    updated_at: z.iso.datetime({ offset: true }),
  })
  .meta({ id: 'Item', description: 'An item of the {{title}} API.' });
