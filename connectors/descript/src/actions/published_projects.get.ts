import { defineAction } from '@plugboard/sdk';
import { z } from 'zod';
import { PublishedProject } from '../entities.js';

/** A share page's slug, or its share URL (`https://share.descript.com/view/<slug>`, as publishes.list gives it). */
const Slug = z
  .string()
  .trim()
  .min(1, { error: 'slug must not be empty' })
  .transform((value) =>
    /^https?:\/\//i.test(value) ? (new URL(value).pathname.split('/').filter(Boolean).at(-1) ?? '') : value,
  )
  .pipe(z.string().regex(/^[^/?#\s]+$/, { error: 'slug must be a share page slug, or a share URL ending in one' }))
  .describe("The share page's URL slug, or its share URL");

export const publishedProjectsGet = defineAction({
  key: 'published_projects.get',
  label: 'Get a share page',
  description:
    'Share-page metadata by URL slug (GET /published_projects/{slug}): title, duration, type, privacy, subtitles. Its own budget: 1,000 requests an hour per connection. A page still processing (409, retry later) or whose publish failed (409) gives a conflict error with its state.',
  direction: 'source',
  entity: PublishedProject,
  input: z.strictObject({ slug: Slug }),
  async *read(ctx, input) {
    const page = await ctx.http.get<Record<string, unknown>>('/published_projects/{slug}', {
      params: { slug: input.slug },
    });
    yield { records: [{ slug: input.slug, ...page } as z.input<typeof PublishedProject>] };
  },
});
