import { defineAction } from '@plugboard/sdk';
import { z } from 'zod';
import { Publish } from '../entities.js';
import { providerId } from '../inputs.js';
import { projectDetail } from '../project-detail.js';

export const publishesList = defineAction({
  key: 'publishes.list',
  label: 'List share pages',
  description:
    'Share pages already published from a project with URL, access level and dates, from GET /projects/{project_id}. Read only: publishing is not offered.',
  direction: 'source',
  entity: Publish,
  input: z.strictObject({ project_id: providerId('The project id') }),
  async *read(ctx, input) {
    const project = await projectDetail(ctx, 'publishes.list', input.project_id);
    yield {
      records: project.publishes.map((publish) => ({ project_id: project.id, ...publish }) as z.input<typeof Publish>),
    };
  },
});
