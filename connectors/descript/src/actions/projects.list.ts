import { defineAction } from '@plugboard/sdk';
import { z } from 'zod';
import { Project, type ProjectRecord } from '../entities.js';
import { pageLimit, timestamp } from '../inputs.js';
import { after, byCursor, timestampCheckpoint } from '../listing.js';

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
  incremental: {
    cursorField: 'updated_at',
    checkpoint: timestampCheckpoint('updated_after'),
    newerThan: after('updated_after'),
    order: 'oldest-first',
  },
  paginator: byCursor,
  read(ctx, input) {
    const { updated_after, limit, ...filters } = input;
    // `updated_after` keeps its place in the query: the SDK fills it in from the checkpoint.
    const query = { ...filters, updated_after: undefined, sort: 'updated_at', direction: 'asc', limit };
    return ctx.pages<ProjectRecord>({ path: '/projects', query }, { from: updated_after });
  },
});
