import { defineAction } from '@plugboard/sdk';
import { z } from 'zod';
import { ProjectDetail } from '../entities.js';
import { providerId } from '../inputs.js';
import { projectDetail } from '../project-detail.js';

export const projectsGet = defineAction({
  key: 'projects.get',
  label: 'Get a project',
  description:
    'One project (GET /projects/{project_id}) with its media files, compositions and share pages, and their counts (media_files_count, compositions_count, publishes_count).',
  direction: 'source',
  entity: ProjectDetail,
  input: z.strictObject({ project_id: providerId('The project id') }),
  async *read(ctx, input) {
    const project = await projectDetail(ctx, 'projects.get', input.project_id);
    const record = {
      ...project,
      media_files_count: Object.keys(project.media_files).length,
      compositions_count: project.compositions.length,
      publishes_count: project.publishes.length,
    };
    yield { records: [record as z.input<typeof ProjectDetail>] };
  },
});
