import { defineAction } from '@plugboard/sdk';
import { z } from 'zod';
import { Composition } from '../entities.js';
import { providerId } from '../inputs.js';
import { projectDetail } from '../project-detail.js';

export const compositionsList = defineAction({
  key: 'compositions.list',
  label: 'List compositions',
  description:
    'The compositions (timelines) of a project with duration and media type, from GET /projects/{project_id}.',
  direction: 'source',
  entity: Composition,
  input: z.strictObject({ project_id: providerId('The project id') }),
  async *read(ctx, input) {
    const project = await projectDetail(ctx, 'compositions.list', input.project_id);
    yield {
      records: project.compositions.map(
        (composition) => ({ project_id: project.id, ...composition }) as z.input<typeof Composition>,
      ),
    };
  },
});
