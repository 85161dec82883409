import { defineAction, SchemaMismatchError, zodIssues } from '@plugboard/sdk';
import { z } from 'zod';
import { SEARCH_LIMIT, SEARCH_MATCHES, SEARCH_SORTS, SEARCH_TYPES } from '../contract.js';
import { DriveItem } from '../entities.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A date (a whole UTC day) or a timestamp; sent as a timestamp, as the provider's document types it. */
const dayOrInstant = (what: string) =>
  z
    .union([z.iso.date(), z.iso.datetime({ offset: true })], {
      error: `${what} must be a date (2026-08-01) or an ISO 8601 timestamp with a zone`,
    })
    .describe(`${what}: a date (a whole UTC day) or a timestamp`);

/** `updated_after=2026-08-01` means from the start of that UTC day, `updated_before` to its end. */
function instant(value: string | undefined, end: 'start' | 'end'): string | undefined {
  if (value === undefined || !DATE.test(value)) return value;
  return end === 'start' ? `${value}T00:00:00Z` : `${value}T23:59:59.999Z`;
}

const Answer = z.object({ results: z.array(z.unknown()) });

export const driveItemsSearch = defineAction({
  key: 'drive_items.search',
  label: 'Search the drive',
  description:
    "Ranked search (GET /search) across project names, folder names, media file names, composition text and transcripts of the token's drive: one page of at most 100 results.",
  direction: 'source',
  entity: DriveItem,
  input: z
    .strictObject({
      query: z.string().trim().min(1, { error: 'query must not be empty' }).describe('Search text'),
      updated_after: dayOrInstant('Items updated at or after').optional(),
      updated_before: dayOrInstant('Items updated at or before').optional(),
      owner: z.array(z.string().min(1)).min(1).optional().describe('Only items owned by these user ids'),
      type: z.array(z.enum(SEARCH_TYPES)).min(1).optional().describe('Only these result types'),
      match: z
        .array(z.enum(SEARCH_MATCHES))
        .min(1)
        .optional()
        .describe(
          'How the query may match (default name and content); `visual` (Enterprise drives only) cannot be combined with another kind',
        ),
      sort: z.enum(SEARCH_SORTS).optional().describe('relevance (default), newest or oldest'),
      limit: z
        .number()
        .int()
        .min(1)
        .max(SEARCH_LIMIT.max)
        .default(SEARCH_LIMIT.default)
        .describe(`Results, 1 to ${SEARCH_LIMIT.max} (default ${SEARCH_LIMIT.default}); the search answers one page`),
    })
    .refine((input) => !(input.match?.includes('visual') && input.match.length > 1), {
      path: ['match'],
      error: 'visual cannot be combined with another match kind',
    }),
  async *read(ctx, input) {
    const answer = await ctx.http.request({
      method: 'GET',
      path: '/search',
      query: {
        query: input.query,
        updated_after: instant(input.updated_after, 'start'),
        updated_before: instant(input.updated_before, 'end'),
        owner: input.owner,
        type: input.type,
        match: input.match,
        sort: input.sort,
        limit: input.limit,
      },
    });
    const parsed = Answer.safeParse(answer.data);
    if (!parsed.success)
      throw new SchemaMismatchError('descript drive_items.search', zodIssues(parsed.error), {
        requestId: answer.requestId,
      });
    yield { records: parsed.data.results as z.input<typeof DriveItem>[] };
  },
});
