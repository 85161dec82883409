import { z } from 'zod';
import { PAGE_LIMIT } from './contract.js';

/** Input fields several actions share, under the provider's own names. */

/** An id as the provider takes it: any non-empty string (its guide shows short ids, its schema uuids). */
export const providerId = (what: string) =>
  z
    .string()
    .trim()
    .min(1, { error: `${what} must not be empty` })
    .describe(what);

/** An ISO 8601 timestamp with a zone offset, as the provider's date-time filters take it. */
export const timestamp = (what: string) =>
  z.iso
    .datetime({ offset: true, error: `${what} must be an ISO 8601 timestamp with a zone, e.g. 2026-08-01T09:30:00Z` })
    .describe(what);

export const pageLimit = (fallback: number) =>
  z
    .number()
    .int()
    .min(1)
    .max(PAGE_LIMIT.max)
    .default(fallback)
    .describe(`Records per request, 1 to ${PAGE_LIMIT.max} (default ${fallback}); every page is read`);

/**
 * The choice both destinations share: an existing project (`project_id`) or a
 * new one (`project_name`), exactly one, and fields that belong to one of them.
 */
export function checkProjectChoice(
  input: Partial<Record<string, unknown>> & { project_id?: string | undefined; project_name?: string | undefined },
  ctx: z.RefinementCtx,
  only: { existing: readonly string[]; created: readonly string[] },
): void {
  if ((input.project_id === undefined) === (input.project_name === undefined)) {
    ctx.addIssue({
      code: 'custom',
      path: ['project_id'],
      message:
        input.project_id === undefined
          ? 'give exactly one of project_id (an existing project) and project_name (a new one)'
          : 'give exactly one of project_id and project_name, not both',
    });
  }
  for (const field of only.existing) {
    if (input[field] !== undefined && input.project_id === undefined)
      ctx.addIssue({ code: 'custom', path: [field], message: `${field} needs project_id` });
  }
  for (const field of only.created) {
    if (input[field] !== undefined && input.project_id !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [field],
        message: `${field} applies to a new project only (with project_name)`,
      });
    }
  }
}
