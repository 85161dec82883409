import { defineAction } from '@plugboard/sdk';
import { z } from 'zod';
import { API_VERSION } from '../contract.js';
import { DriveStatus } from '../entities.js';

export const statusGet = defineAction({
  key: 'status.get',
  label: 'Check the token',
  description:
    'Validates the token and returns the one drive it is tied to and the provider API version (GET /status).',
  direction: 'source',
  entity: DriveStatus,
  input: z.strictObject({}),
  async *read(ctx) {
    const status = await ctx.http.get<z.input<typeof DriveStatus>>('/status');
    if (status && typeof status === 'object' && status.api_version !== API_VERSION) {
      ctx.log.warn(
        `the provider answers API version ${String(status.api_version)}; this connector was written for ${API_VERSION}`,
      );
    }
    yield { records: [status] };
  },
});
