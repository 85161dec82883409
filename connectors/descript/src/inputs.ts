import { z } from 'zod';
import { PAGE_LIMIT } from './contract.js';

/** Input fields several actions share, under the provider's own names. */

/** An id as the provider takes it: any non-empty string (its guide shows short ids, its schema uuids). */
export const providerId = (what: string) => z.string().trim().min(1, { error: `${what} must not be empty` }).describe(what);

/** An ISO 8601 timestamp with a zone offset, as the provider's date-time filters take it. */
export const timestamp = (what: string) =>
  z.iso.datetime({ offset: true, error: `${what} must be an ISO 8601 timestamp with a zone, e.g. 2026-08-01T09:30:00Z` }).describe(what);

export const pageLimit = (fallback: number) =>
  z
    .number()
    .int()
    .min(1)
    .max(PAGE_LIMIT.max)
    .default(fallback)
    .describe(`Records per request, 1 to ${PAGE_LIMIT.max} (default ${fallback}); every page is read`);
