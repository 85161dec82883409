import { defineAction } from '@plugboard/sdk';
import { z } from 'zod';
import { Project, type ProjectRecord } from '../entities.js';
import { pageLimit, timestamp } from '../inputs.js';
import { cursorPages } from '../paging.js';
import { resumeFrom, seenIds, Watermark } from '../watermark.js';

/** Where the next run resumes: the newest updated_at read, and the ids read at exactly that instant. */
const ProjectsCheckpoint = z.strictObject({ updated_after: z.iso.datetime({ offset: true }), seen_ids: seenIds });
type ProjectsCheckpoint = z.output<typeof ProjectsCheckpoint>;

export const projectsList = defineAction({
  key: 'projects.list',
  label: 'List projects',
  description:
    "Projects in the token's drive (GET /projects) with name, folder, creator and date filters, every page, oldest update first (sort=updated_at, direction=asc). Incremental on updated_at: the next run reads only projects created or changed since.",
  direction: 'source',
  entity: Project,
  input: z.strictObject({
    name: z.string().min(1).optional().describe('Projects whose name contains this text (case-insensitive)'),
    folder_path: z
      .string()
      .min(1)
      .optional()
      .describe('Projects directly inside this folder, e.g. "Clients/Acme/Videos"'),
    created_by: z.string().min(1).optional().describe('Projects created by this user id, or `me`'),
    created_after: timestamp('Projects created after this instant').optional(),
    created_before: timestamp('Projects created before this instant').optional(),
    updated_after: timestamp('Where the first run starts; later runs start at their checkpoint').optional(),
    limit: pageLimit(100),
  }),
  incremental: { cursorField: 'updated_at', checkpoint: ProjectsCheckpoint },
  async *read(ctx, input) {
    const { updated_after, limit, ...filters } = input;
    const start: ProjectsCheckpoint | undefined =
      ctx.checkpoint ?? (updated_after ? { updated_after, seen_ids: [] } : undefined);
    const mark = new Watermark(
      { subject: 'descript projects.list', time: 'updated_at', id: 'id', requestId: () => ctx.http.lastRequestId },
      start && { at: start.updated_after, seen_ids: start.seen_ids },
    );
    const query = {
      ...filters,
      updated_after: start && resumeFrom(start.updated_after),
      sort: 'updated_at',
      direction: 'asc',
      limit,
    };
    for await (const page of cursorPages(ctx, 'projects.list', '/projects', query)) {
      const records = mark.keepNew(page.data);
      const at = mark.mark;
      yield {
        records: records as ProjectRecord[],
        ...(at ? { checkpoint: { updated_after: at.at, seen_ids: at.seen_ids } } : {}),
      };
    }
  },
});
